// quickstart.mjs - registers a few tools and runs calls through the wasm
// module, printing what happened to each. Run: npm run example
import { createToolRuntime } from 'toolgate';

const rt = await createToolRuntime();

rt.registerTool({
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}, async ({ city }) => {
  await new Promise((r) => setTimeout(r, 5)); // handlers may be async
  return { city, tempC: 21, sky: 'clear' };
});

rt.registerTool({
  name: 'send_email',
  description: 'Sends an email',
  inputSchema: { type: 'object', properties: { to: { type: 'string' }, body: { type: 'string' } }, required: ['to', 'body'] },
}, () => { throw new Error('SMTP server unreachable'); });

rt.registerTool({
  name: 'echo',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
}, ({ text }) => text);

const calls = [
  ['a successful call', 'get_weather', '{"city":"Lisbon"}'],
  ['a handler that throws', 'send_email', '{"to":"a@example.com","body":"hi"}'],
  ['invalid JSON arguments', 'get_weather', '{"city":"Lisbon",}'],
  ['a missing required property', 'send_email', '{"to":"a@example.com"}'],
  ['duplicate keys (a parser-differential trick)', 'echo', '{"text":"safe","text":"rm -rf /"}'],
  ['an unknown tool', 'delete_everything', '{}'],
  ['10,000-deep nesting', 'echo', '['.repeat(10000)],
  ['a plain string result', 'echo', '{"text":"hello"}'],
];

for (const [what, tool, args] of calls) {
  const result = await rt.callTool(tool, args);
  const code = result._meta?.['dev.toolgate/error']?.code;
  const status = result.isError ? `error${code ? ` (${code})` : ''}` : 'ok';
  console.log(`\n# ${what}: ${tool}(${args.length > 60 ? args.slice(0, 57) + '...' : args})`);
  console.log(`  -> ${status}: ${result.content.map((c) => c.text).join(' ').replace(/\n/g, '\n     ')}`);
  if (result.structuredContent) console.log(`     structuredContent: ${JSON.stringify(result.structuredContent)}`);
}
console.log(`\nmodule memory: ${rt.memorySize()} bytes, runtime allocations: ${rt.memoryUsed()} bytes`);
rt.dispose();
