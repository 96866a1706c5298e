// The artifact page (./artifact-page): a chunk of its own, with the names, type badges and history
// it shows, so a first visit does not load it.
import { lazyComponent } from './lazy';

export const ArtifactView = lazyComponent(() => import('./artifact-page').then((m) => m.ArtifactView), 'artifact page');
