/** A content type without its parameters, lower-cased: `Text/Markdown; charset=utf-8` → `text/markdown`. */
export const baseType = (contentType: string) => contentType.split(';')[0]!.trim().toLowerCase();

/** Whether a content type is one of the platform's own (`application/vnd.platform.…`, §2.2), whatever its case and parameters. */
export const isPlatformType = (contentType: string) => baseType(contentType).startsWith('application/vnd.platform.');
