import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import type { NamespaceEntry, ReportTemplate } from '../api/types';
import { useSession } from '../auth/session';
import { Field, Page } from '../ui/page';
import { ActionResult, ErrorBox, QueryView } from '../ui/states';

const FORMATS = ['markdown', 'markdown_light', 'html'] as const;

/**
 * Report templates: list, edit (PATCH), create (POST), seed built-ins, and a live preview
 * against a chosen namespace (POST …/report-templates/preview; render errors shown inline).
 * The preview is shown as text (Markdown) or in a script-less sandboxed frame (HTML).
 */
export default function Templates() {
  const session = useSession();
  const base = `/orgs/${encodeURIComponent(session.org_id!)}/report-templates`;
  const client = useQueryClient();
  const admin = session.can('admin');
  const templates = useQuery({ queryKey: ['templates', session.org_id], queryFn: () => api.get<{ templates: ReportTemplate[] }>(base) });
  const namespaces = useQuery({ queryKey: ['namespaces'], queryFn: () => api.get<NamespaceEntry[]>('/namespaces') });
  const [selected, setSelected] = useState<string>('');
  const current = templates.data?.templates.find((t) => t.template_id === selected);
  const [source, setSource] = useState('');
  const [format, setFormat] = useState<(typeof FORMATS)[number]>('markdown');
  const [name, setName] = useState('');
  const [namespace, setNamespace] = useState('');
  useEffect(() => {
    if (current) {
      setSource(current.source);
      setFormat(current.format as (typeof FORMATS)[number]);
      setName(current.name);
    }
  }, [current]);
  const refresh = () => client.invalidateQueries({ queryKey: ['templates'] });
  const save = useMutation({
    mutationFn: () => (current ? api.patch(`${base}/${encodeURIComponent(current.template_id)}`, { name, source }) : api.post(base, { name, format, source })),
    onSuccess: refresh,
  });
  const seed = useMutation({ mutationFn: () => api.post(`${base}/seed-builtin`), onSuccess: refresh });
  const preview = useMutation({ mutationFn: () => api.post<{ content: string; content_type: string }>(`${base}/preview`, { source, format, namespace }) });
  return (
    <Page title="Report templates">
      <QueryView query={templates} isEmpty={() => false}>
        {(d) => (
          <div className="row">
            <Field label="Template">
              <select value={selected} onChange={(e) => setSelected(e.target.value)}>
                <option value="">New template</option>
                {d.templates.map((t) => (
                  <option key={t.template_id} value={t.template_id}>
                    {t.name} ({t.format}
                    {t.is_default ? ', default' : ''})
                  </option>
                ))}
              </select>
            </Field>
            {admin ? (
              <button type="button" onClick={() => seed.mutate()}>
                Import built-in templates
              </button>
            ) : null}
            {d.templates.length === 0 ? <p className="muted">No templates yet: reports use the built-in ones.</p> : null}
          </div>
        )}
      </QueryView>
      <ActionResult error={seed.error} />
      <div className="row">
        <Field label="Name">
          <input value={name} onChange={(e) => setName(e.target.value)} disabled={!admin} />
        </Field>
        <Field label="Format">
          <select value={format} onChange={(e) => setFormat(e.target.value as (typeof FORMATS)[number])} disabled={!!current || !admin}>
            {FORMATS.map((f) => (
              <option key={f}>{f}</option>
            ))}
          </select>
        </Field>
        <Field label="Preview namespace">
          <select value={namespace} onChange={(e) => setNamespace(e.target.value)}>
            <option value="">Choose…</option>
            {namespaces.data?.map((n) => (
              <option key={n.namespace}>{n.namespace}</option>
            ))}
          </select>
        </Field>
      </div>
      <Field label="Source (LiquidJS)">
        <textarea className="mono" rows={14} value={source} onChange={(e) => setSource(e.target.value)} readOnly={!admin} spellCheck={false} />
      </Field>
      <div className="actions">
        <button type="button" onClick={() => preview.mutate()} disabled={!namespace || !source || preview.isPending}>
          Preview
        </button>
        {admin ? (
          <button type="button" onClick={() => save.mutate()} disabled={!name || !source || save.isPending}>
            Save template
          </button>
        ) : null}
      </div>
      <ActionResult error={save.error} success={save.isSuccess ? 'Saved.' : null} />
      {preview.isError ? <ErrorBox error={preview.error} /> : null}
      {preview.data ? (
        preview.data.content_type.includes('html') ? (
          <iframe className="report-frame" title="Template preview" sandbox="" srcDoc={preview.data.content} />
        ) : (
          <pre className="mono preview">{preview.data.content}</pre>
        )
      ) : null}
    </Page>
  );
}
