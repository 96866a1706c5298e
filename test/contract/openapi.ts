// The REST API's generated types live in the typed client package (clients/typescript/src/openapi.ts,
// refreshed by `node --import tsx test/contract/generate.ts`); client-script.ts reads them from here.
export type { components, operations, paths } from '../../clients/typescript/src/openapi.js';
