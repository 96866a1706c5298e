import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Custom search attributes that make every run findable in the Temporal UI (DESIGN: workflows). */
export const WorkspaceId = defineSearchAttributeKey('WorkspaceId', SearchAttributeType.KEYWORD);
export const ArtifactId = defineSearchAttributeKey('ArtifactId', SearchAttributeType.KEYWORD);
export const PrincipalId = defineSearchAttributeKey('PrincipalId', SearchAttributeType.KEYWORD);
export const RunKind = defineSearchAttributeKey('RunKind', SearchAttributeType.KEYWORD);

export const customSearchAttributes = [WorkspaceId, ArtifactId, PrincipalId, RunKind];
