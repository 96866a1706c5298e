import { v5 as uuidv5 } from 'uuid';

const namespace = '5b0c7e0e-3c57-4b6e-9d0a-6f2d8c3a9e71';

/** A person has one connection per authorizer: its id is fixed by the pair. */
export const connectionIdFor = (userId: string, authorizerId: string) => uuidv5(`connection:${userId}:${authorizerId}`, namespace);

/** Where the provider sends the person back: registered with the provider as the OAuth app's redirect URI. */
export const callbackUrl = (apiUri: string, authorizerId: string) => `${apiUri}/connections/${authorizerId}/callback`;

/**
 * Where the platform serves the client ID metadata document of a discovered authorizer (its
 * `client_id` at an authorization server that takes such documents; used only when the API is on https).
 */
export const clientMetadataUrl = (apiUri: string, authorizerId: string) => `${apiUri}/connections/${authorizerId}/client-metadata`;
