import { v5 as uuidv5 } from 'uuid';

const personaNamespace = '0b7f6a4e-5d2c-4f1e-9a63-2f1d8c7b9e10';

/**
 * Built-in persona servers (SPEC §4.2): servers the platform itself provides, addressable by a fixed
 * artifact id like any registered server. The platform's own toolset is one.
 */
export const platformToolsetId = uuidv5('platform:toolset', personaNamespace);

export const isBuiltinServer = (id: string) => id === platformToolsetId;
