import { defineQuery } from '@temporalio/workflow';
import type { ImportCounts } from '../../store/imports.js';

/**
 * The contract of `importArtifacts` (workflows/import-artifacts.ts): one run per bulk import (issue
 * #33). The API stages the items in the store; the run writes them in batches, each batch one
 * activity, and records its progress on the import after each.
 */
export const importArtifactsType = 'importArtifacts';
export type ImportArtifacts = (input: ImportArtifactsInput) => Promise<ImportCounts>;

/** The failure type of an import that may not go on (its workspace gone, its requester's grant withdrawn). */
export const importRefusedFailure = 'import-refused';

export const importStatusQuery = defineQuery<ImportStatus>('status');

export interface ImportArtifactsInput {
  importId: string;
  workspaceId: string;
  /** Staged items: seq 0 … total − 1. */
  total: number;
  /** Items per batch activity. */
  batch: number;
  /** Carried over a continue-as-new. */
  from?: number;
  counts?: ImportCounts;
}

export interface ImportBatchInput {
  importId: string;
  workspaceId: string;
  from: number;
  to: number;
  /** The counts before this batch: the activity records them plus its own (the same on a retry). */
  before: ImportCounts;
}

export interface ImportBatchResult {
  /** The counts after the items this batch wrote. */
  counts: ImportCounts;
  /** The item the next batch starts from: `to`, or less when the batch's reading budget ran out. */
  next: number;
}

export interface ImportStatus {
  total: number;
  counts: ImportCounts;
  /** The next item a batch starts from. */
  next: number;
}
