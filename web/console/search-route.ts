// The search page's place in the console's first load: only this wrapper. The page itself
// (search.tsx, with the analyzer that marks a snippet's words) is a chunk fetched on the first visit.
import { lazyComponent } from './lazy';

export const SearchPage = lazyComponent(() => import('./search').then((m) => m.SearchView), 'search page');
