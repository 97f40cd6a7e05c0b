// quickstart.mjs - registers a few tools and runs calls through the wasm
// module, printing what happened to each. Run: npm run example
import { createToolRuntime } from 'toolgate';

// A policy: mail asks a person first, secrets are never read.
const policy = {
  version: 1,
  defaults: ['*'],
  rules: [
    { id: 'confirm-mail', effect: 'ask', tools: ['send_email'], reason: 'a person confirms outgoing mail' },
    { id: 'no-secrets', effect: 'deny', tools: ['read_file'], args: { path: { prefix: '/etc/' } } },
    { id: 'rest', effect: 'allow', tools: ['*'] },
  ],
};
const rt = await createToolRuntime({ policy });

rt.registerTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}, async ({ city }) => {
  await new Promise((r) => setTimeout(r, 5)); // handlers may be async
  return { city, tempC: 21, sky: 'clear' };
});

rt.registerTool({
  name: 'send_sms',
  description: 'Sends a text message',
  inputSchema: { type: 'object', properties: { to: { type: 'string' }, body: { type: 'string' } }, required: ['to', 'body'] },
}, () => { throw new Error('SMS gateway unreachable'); });

rt.registerTool({
  name: 'send_email',
  description: 'Sends an email',
  inputSchema: { type: 'object', properties: { to: { type: 'string' }, body: { type: 'string' } }, required: ['to', 'body'] },
}, ({ to }) => `sent to ${to}`);

rt.registerTool({
  name: 'echo',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
}, ({ text }) => text);

rt.registerTool({
  name: 'read_file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
}, ({ path }) => `contents of ${path}`, { readOnly: true });

const calls = [
  ['a successful call', 'get_weather', '{"city":"Lisbon"}'],
  ['a handler that throws', 'send_sms', '{"to":"+15550100","body":"hi"}'],
  ['invalid JSON arguments', 'get_weather', '{"city":"Lisbon",}'],
  ['a missing required property', 'send_sms', '{"to":"+15550100"}'],
  ['duplicate keys (a parser-differential trick)', 'echo', '{"text":"safe","text":"rm -rf /"}'],
  ['an unknown tool', 'delete_everything', '{}'],
  ['10,000-deep nesting', 'echo', '['.repeat(10000)],
  ['a plain string result', 'echo', '{"text":"hello"}'],
  ['a call the policy denies', 'read_file', '{"path":"/etc/shadow"}'],
];

for (const [what, tool, args] of calls) {
  const result = await rt.callTool(tool, args);
  const code = result._meta?.['dev.toolgate/error']?.code;
  const status = result.isError ? `error${code ? ` (${code})` : ''}` : 'ok';
  console.log(`\n# ${what}: ${tool}(${args.length > 60 ? args.slice(0, 57) + '...' : args})`);
  console.log(`  -> ${status}: ${result.content.map((c) => c.text).join(' ').replace(/\n/g, '\n     ')}`);
  if (result.structuredContent) console.log(`     structuredContent: ${JSON.stringify(result.structuredContent)}`);
}
// A call the policy asks about waits for a person, then runs exactly once.
const mail = '{"to":"ceo@example.com","body":"quarterly numbers"}';
const pending = await rt.callTool('send_email', mail, { principal: 'agent-1', session: 's1' });
console.log(`\n# a call that needs approval: send_email(${mail})\n  -> ${pending.status}: ${pending.reason} (id ${pending.approvalId})`);
const approved = await rt.resolveApproval(pending.approvalId, 'approve');
console.log(`  -> after a person approved: ${approved.isError ? 'error' : 'ok'}: ${approved.content[0].text}`);

const list = rt.listTools({ format: 'anthropic' });
console.log(`\n# the model sees ${list.tools.length} tools in Anthropic's format: ${list.tools.map((t) => t.name).join(', ')}`);
console.log(`\nmodule memory: ${rt.memorySize()} bytes, runtime allocations: ${rt.memoryUsed()} bytes`);
rt.dispose();
