export type { OperationContext } from './services.js';
