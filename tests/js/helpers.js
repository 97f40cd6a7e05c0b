// helpers.js - shared by the JS tests: where the test data and the wasm are.
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const testdata = process.env.TG_TESTDATA || path.join(repoRoot, '..', 'shared', 'testdata');
export const wasmPath = path.join(repoRoot, 'dist', 'toolgate.wasm');
