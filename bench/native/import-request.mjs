// import-request.mjs - writes to stdout the tg_register_batch request the
// JS layer sends for importTools('gh', makeTools(1000)) (bench/lib-tools.mjs):
// the input of bench/native/import.c.
// usage: node bench/native/import-request.mjs > /tmp/req.json
import { makeTools } from '../lib-tools.mjs';

const tools = makeTools(1000).map((tool, i) => ({ tool, handler: i + 1 }));
process.stdout.write(JSON.stringify({ source: 'gh', atomic: false, replace: true, tools }));
