// Text that PostgreSQL and JSON can hold, whatever a file decoded to.

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** No NUL or other C0 controls but tab and newline (each becomes a space), CRLF as LF, no lone surrogates. */
export const clean = (text: string): string =>
  text
    .replace(loneSurrogate, '\uFFFD')
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ');
