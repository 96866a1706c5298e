import { z } from 'zod';
import { isPlatformType } from './base-type.js';

const mime = z
  .string()
  .max(255)
  .regex(/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i, 'must be a full MIME type')
  .transform((m) => m.toLowerCase());

const inVendorTree = (mime: string) => /^[a-z0-9!#$&^_.+-]+\/(vnd\.|prs\.|x\.|x-)/.test(mime);

/** Whether a server may define this (lower-cased, parameter-free) type: only such types have lifecycle servers. */
export const definableType = (mime: string) => inVendorTree(mime) && !isPlatformType(mime);

/** §2.10: a content type definition (`type.json`) that a content-type server ships. */
export const typeDefinition = z.object({
  // Only vendor, personal and unregistered trees (RFC 6838): a server may not claim text/markdown and
  // so receive every markdown draft of the workspace, nor redefine the platform's own types.
  mime: mime
    .refine(inVendorTree, 'must be a vendor type (type/vnd.…, prs.…, x.… or x-…)')
    .refine((m) => !isPlatformType(m), 'may not redefine a platform-owned type'),
  version: z.int().min(1),
  inherits: z.array(mime).max(16).default([]),
  description: z.string().max(2000).optional(),
  ui: z
    .object({
      label: z.string().max(100).optional(),
      icon: z.string().max(2048).optional(),
      color: z
        .string()
        .regex(/^#[0-9a-fA-F]{3,8}$/, 'must be a hex color')
        .optional(),
      viewer: z.string().max(200).optional(),
    })
    .default({}),
});
export type TypeDefinition = z.infer<typeof typeDefinition>;

/** The MCP resources that carry a type definition: any whose URI path ends in `type.json`. */
export const isTypeDefinitionUri = (uri: string) => /(^|\/)type\.json$/i.test(uri.split(/[?#]/)[0]!);

/** Lifecycle tools a content-type server may implement (§4.6); unimplemented ones are skipped. */
export const lifecycleTools = ['on_create', 'on_open', 'extract_text', 'summarize'] as const;
export type LifecycleTool = (typeof lifecycleTools)[number];
