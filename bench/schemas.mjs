// schemas.mjs - generated, realistic tool input schemas (what MCP servers
// publish: zod-to-json-schema and pydantic shapes) and matching arguments.
// Deterministic: the same seed gives the same schemas.

function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 4294967296);
}

const WORDS = ['query', 'path', 'owner', 'repo', 'limit', 'offset', 'title', 'body', 'labels', 'state', 'branch',
  'message', 'channel', 'user_id', 'email', 'url', 'since', 'until', 'tags', 'priority', 'assignee', 'project'];

function prop(r, depth) {
  const k = Math.floor(r() * 7);
  const description = `The ${WORDS[Math.floor(r() * WORDS.length)]} to use`;
  switch (k) {
    case 0: return { type: 'string', description, minLength: 1, maxLength: 200 };
    case 1: return { type: 'integer', description, minimum: 0, maximum: 1000 };
    case 2: return { type: 'string', enum: ['open', 'closed', 'all'], description };
    case 3: return { type: 'array', items: { type: 'string', maxLength: 50 }, maxItems: 20, description };
    case 4: return { type: 'string', format: 'date-time', description };
    case 5: return { type: 'boolean', description, default: false };
    default:
      return depth > 1 ? { type: 'string', pattern: '^[a-z0-9_-]+$' } : object(r, depth + 1, 2 + Math.floor(r() * 3));
  }
}

function object(r, depth, n) {
  const properties = {};
  const required = [];
  for (let i = 0; i < n; i++) {
    const name = `${WORDS[Math.floor(r() * WORDS.length)]}${i}`;
    properties[name] = prop(r, depth);
    if (r() < 0.5) required.push(name);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

export function toolSchema(seed, draft = '2020-12') {
  const r = rng(seed);
  const s = object(r, 0, 3 + Math.floor(r() * 9));
  s.$schema = draft === 'draft-07' ? 'http://json-schema.org/draft-07/schema#' : 'https://json-schema.org/draft/2020-12/schema';
  return s;
}

/** The ~200-byte argument of the benchmarks, with its schema. */
export const callSchema = {
  type: 'object',
  properties: {
    owner: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9-]+$' },
    repo: { type: 'string', minLength: 1, maxLength: 100 },
    title: { type: 'string', maxLength: 256 },
    body: { type: 'string' },
    labels: { type: 'array', items: { type: 'string' }, maxItems: 10 },
    priority: { type: 'integer', minimum: 1, maximum: 5 },
    draft: { type: 'boolean' },
  },
  required: ['owner', 'repo', 'title'],
  additionalProperties: false,
};
export const validArgs = JSON.stringify({
  owner: 'toolgate-dev', repo: 'toolgate', title: 'Validation is slow on large inputs',
  body: 'Steps: register 1,000 tools and call each once.', labels: ['perf', 'bug'], priority: 2, draft: false,
});
export const invalidArgs = JSON.stringify({
  owner: 'toolgate dev', repo: 'toolgate', title: 'Validation is slow on large inputs',
  body: 'Steps: register 1,000 tools and call each once.', labels: ['perf', 7], priority: '2', draft: false,
});

/** A ~100 KB argument: a batch of records. */
export const bigSchema = {
  type: 'object',
  properties: {
    records: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer', minimum: 0 },
          name: { type: 'string', maxLength: 100 },
          email: { type: 'string', maxLength: 200 },
          tags: { type: 'array', items: { type: 'string' } },
          score: { type: 'number' },
          active: { type: 'boolean' },
        },
        required: ['id', 'name'],
        additionalProperties: false,
      },
    },
  },
  required: ['records'],
};
export function bigArgs() {
  const records = [];
  for (let i = 0; records.length < 10000; i++) {
    records.push({ id: i, name: `user ${i}`, email: `user${i}@example.com`, tags: ['a', 'b'], score: i * 0.5, active: i % 2 === 0 });
    if (JSON.stringify({ records }).length > 100_000) { records.pop(); break; }
  }
  return JSON.stringify({ records });
}
