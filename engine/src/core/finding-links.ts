/**
 * Links into the dashboard from reports and notifications (docs/decisions.md "A finding's own page"): a
 * namespace's findings at `{base}/findings?namespace={namespace}`, one finding at
 * `{base}/findings/{namespace}/{resource_hash}/{rule_id}`. `base` is the operator's
 * `server.dashboard_base_url` (else `public_base_url`): only a configured base makes absolute links.
 */

/** `{base}/findings?namespace=…`, or null without a base. */
export function namespaceFindingsUrl(base: string | null | undefined, namespace: string): string | null {
  return base ? `${base.replace(/\/+$/, '')}/findings?namespace=${encodeURIComponent(namespace)}` : null;
}

/**
 * A finding's own page under a namespace's findings link (`namespaceFindingsUrl`'s form): the
 * same origin and path, then `/{namespace}/{resource_hash}/{rule_id}`. Null when `namespaceUrl`
 * is null or not such a link (an http(s) URL whose path ends in `/findings`).
 */
export function findingPageUrl(namespaceUrl: string | null, namespace: string, resourceHash: string, ruleId: string): string | null {
  if (!namespaceUrl) return null;
  let url: URL;
  try {
    url = new URL(namespaceUrl);
  } catch {
    return null;
  }
  if (!/^https?:$/.test(url.protocol) || !url.pathname.endsWith('/findings')) return null;
  return `${url.origin}${url.pathname}/${[namespace, resourceHash, ruleId].map(encodeURIComponent).join('/')}`;
}
