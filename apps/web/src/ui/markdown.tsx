import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'react';

/**
 * Markdown rendered by marked and sanitised by DOMPurify before it reaches the DOM (rulesets,
 * rule descriptions, markdown reports). The only place the dashboard sets HTML.
 */
export function Markdown({ source, label }: { source: string; label?: string }) {
  const html = useMemo(() => DOMPurify.sanitize(marked.parse(source, { async: false }) as string, { USE_PROFILES: { html: true } }), [source]);
  return (
    // biome-ignore lint/a11y/useAriaPropsSupportedByRole: names the rendered text block for screen readers
    // biome-ignore lint/security/noDangerouslySetInnerHtml: the HTML is sanitised by DOMPurify above
    <div className="markdown" aria-label={label} dangerouslySetInnerHTML={{ __html: html }} />
  );
}
