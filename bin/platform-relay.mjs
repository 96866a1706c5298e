#!/usr/bin/env node
// The desktop host relay (issue #34): `platform-relay --help`. TypeScript sources run through tsx, a dependency of this package.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/relay-host/cli.ts');
// Exit as soon as the relay has closed its servers: nothing it started should keep the process alive.
process.exit(await main(process.argv.slice(2)));
