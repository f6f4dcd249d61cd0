/**
 * The headers every HTML page the server sends carries (the dashboard and /docs), decision 0030.
 * The pages load their scripts, styles and data from this origin only, with no inline script:
 * - `Content-Security-Policy`: everything from this origin (`default-src 'self'`), images also as
 *   `data:` URLs (Swagger UI's icons); no plugins, no `<base>` that moves relative URLs, forms post
 *   here only, and no other site may frame the page (`frame-ancestors 'none'`, against clickjacking).
 * - `X-Frame-Options: DENY`: the same refusal to be framed, for browsers without CSP level 2.
 * - `Referrer-Policy: same-origin`: page addresses carry ids (`/agents/agt_…`) that other sites need
 *   not see. Not `no-referrer`: under it a browser sends `Origin: null` on the dashboard's own
 *   POSTs, which the cross-site check refuses.
 * - `X-Content-Type-Options: nosniff` is on every answer (src/app.ts).
 */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': [
    "default-src 'self'",
    "img-src 'self' data:",
    // Call recordings play from the provider's storage (issue 17).
    "media-src 'self' https: http:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
});
