import { createToolRuntime } from 'toolgate';
import { measure } from './harness.mjs';
import { callSchema, validArgs, invalidArgs } from './schemas.mjs';
const rt = await createToolRuntime();
const tg = rt.compileSchema(callSchema);
for (let k = 0; k < 2; k++) {
console.log('valid flag', measure(() => tg.validate(validArgs, { output: 'flag' }), { budgetMs: 300 }).toFixed(0),
 'valid first', measure(() => tg.validate(validArgs, { maxErrors: 1 }), { budgetMs: 300 }).toFixed(0),
 'invalid first', measure(() => tg.validate(invalidArgs, { maxErrors: 1 }).errors[0], { budgetMs: 300 }).toFixed(0),
 'invalid all', measure(() => tg.validate(invalidArgs).errors[0], { budgetMs: 300 }).toFixed(0));
}
