#!/usr/bin/env node
// toolgate - the command-line tool (see docs/cli.md).
import { main } from '../src/cli.js';

process.exitCode = await main(process.argv.slice(2));
