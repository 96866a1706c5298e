/** The contract of `indexArtifact` (workflows/index-artifact.ts). */
export const indexArtifactType = 'indexArtifact';
export type IndexArtifact = (input: IndexArtifactInput) => Promise<string>;

export interface IndexArtifactInput {
  artifactId: string;
  revision: number;
}
