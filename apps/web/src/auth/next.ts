/** The `next` query parameter when it is a path on this site (never `//host` or a URL): open-redirect guard. */
export function safeNext(search: string, fallback = '/overview'): string {
  const next = new URLSearchParams(search).get('next');
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : fallback;
}
