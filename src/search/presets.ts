/**
 * Field boost presets (SPEC §1): BM25 weights over an artifact's title, its description
 * (`context.description`) and its content. See docs/decisions.md for why these numbers.
 */
export const boostPresets = {
  'description-first': { title: 2, description: 3, content: 0.5 },
  balanced: { title: 2, description: 1.5, content: 1 },
  'content-heavy': { title: 1, description: 0.5, content: 2 },
} as const;

export type BoostPreset = keyof typeof boostPresets;
export const presetNames = Object.keys(boostPresets) as BoostPreset[];
