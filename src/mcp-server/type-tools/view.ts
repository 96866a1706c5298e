import { z } from 'zod';
import { uuid } from '../../kernel/json/schemas.js';
import { viewResults } from '../../operations/views.js';
import { viewResultsSchema } from '../../presenters/views.js';
import { readOnly, type ToolDef } from '../tool-def.js';

/** The view content type's tools on the platform's own MCP server (issue #36). */
export const viewTools: ToolDef[] = [
  {
    name: 'get_view_results',
    title: "Read a view's results",
    description:
      'Returns what a saved view (an application/vnd.platform.view+json artifact) matches now: the artifacts of its workspaces and collections that pass its filter (content types, tags, context fields, text query), in its sort, at most its limit, without their content (read one with get_artifact). Sources you cannot read are listed as readable: false. A view with a query also needs search:read.',
    access: 'artifact:read',
    input: z.strictObject({ view_id: uuid('must be the view artifact id (a UUID)').describe('The view artifact id.') }),
    output: viewResultsSchema.extend({}),
    annotations: readOnly,
    icon: '🔭',
    run: (ctx, input: { view_id: string }) => viewResults(ctx, input.view_id),
  },
];
