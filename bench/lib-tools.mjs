// lib-tools.mjs - deterministic, real-looking MCP tool lists for the registry
// benchmarks: GitHub-style names (create_issue_17), a sentence or two of
// description, and bench/schemas.mjs's generated input schemas (3-11
// properties of mixed types, nested objects, enums, arrays, required lists,
// formats and patterns).
import { readFileSync } from 'node:fs';
import { toolSchema } from './schemas.mjs';

const VERBS = ['create', 'get', 'list', 'update', 'delete', 'search', 'merge', 'close', 'add', 'remove', 'star', 'fork'];
const NOUNS = ['issue', 'pull_request', 'comment', 'branch', 'release', 'label', 'milestone', 'workflow_run',
  'gist', 'repository', 'webhook', 'team', 'file', 'commit', 'tag', 'review', 'discussion', 'deployment'];
const SECOND = [
  'Requires push access to the repository.',
  'Results are paginated; pass the cursor from the previous page.',
  'Returns the updated object as JSON.',
  'Use this when the user asks about recent activity.',
  'Fails if the target does not exist.',
  '',
];

/** count tools; seedBase shifts the schemas so two lists differ. */
export function makeTools(count, seedBase = 0) {
  const tools = [];
  for (let i = 0; i < count; i++) {
    const k = seedBase + i;
    const verb = VERBS[k % VERBS.length];
    const noun = NOUNS[Math.floor(k / VERBS.length) % NOUNS.length];
    const words = noun.replace(/_/g, ' ');
    const second = SECOND[k % SECOND.length];
    const schema = toolSchema(k + 1);
    delete schema.$schema; // MCP's default dialect (2020-12); most servers omit it
    tools.push({
      name: `${verb}_${noun}_${k}`,
      description: `${verb[0].toUpperCase()}${verb.slice(1)} a ${words} in a GitHub repository.${second ? ` ${second}` : ''}`,
      inputSchema: schema,
    });
  }
  return tools;
}

/** The installed @modelcontextprotocol/sdk version (its package.json is not exported). */
export function sdkVersion() {
  try {
    const url = new URL('../node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url);
    return JSON.parse(readFileSync(url, 'utf8')).version;
  } catch {
    return '?';
  }
}
