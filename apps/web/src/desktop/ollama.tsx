import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { desktopApi } from './api';
import { QueryView } from '../ui/states';

const OLLAMA_DOWNLOAD = 'https://ollama.com/download';
const SUGGESTED_MODEL = 'llama3.1:8b';

/** Bytes as GB with one decimal ('—' when Ollama did not say). */
function gigabytes(size: number | null): string {
  return size === null ? '—' : `${(size / 1e9).toFixed(1)} GB`;
}

/** The first sentence of the main process's message (what is wrong); the steps below say what to do. */
function diagnosis(message: string): string {
  return `${message.split('. ')[0].replace(/\.$/, '')}.`;
}

/** The steps from nothing to a usable local model; the first ones are skipped when Ollama already runs. */
function InstallSteps({ running }: { running: boolean }) {
  return (
    <ol>
      {running ? null : (
        <li>
          Install Ollama from{' '}
          <a href={OLLAMA_DOWNLOAD} target="_blank" rel="noreferrer noopener">
            {OLLAMA_DOWNLOAD}
          </a>{' '}
          (the link opens in your browser).
        </li>
      )}
      {running ? null : (
        <li>
          Start it: open the Ollama app, or run <code>ollama serve</code> in a terminal.
        </li>
      )}
      <li>
        Download a model: run <code>ollama pull {SUGGESTED_MODEL}</code> in a terminal (about 5 GB), or any model you prefer.
      </li>
      <li>
        Come back here and press <strong>Check again</strong>.
      </li>
    </ol>
  );
}

/**
 * The Ollama panel of the desktop settings: where Ollama was looked for (OLLAMA_HOST or
 * 127.0.0.1:11434), the models installed there (GET /api/tags, via GET /api/desktop/ollama, which
 * also adds them to the Analyse page's list), or plainly how to install Ollama or pull a model.
 */
export function OllamaPanel() {
  const found = useQuery({ queryKey: ['desktop', 'ollama'], queryFn: desktopApi.ollama });
  const recheck = (
    <button type="button" onClick={() => void found.refetch()} disabled={found.isFetching}>
      {found.isFetching ? 'Checking…' : 'Check again'}
    </button>
  );
  return (
    <QueryView query={found}>
      {(d) =>
        d.status === 'ready' ? (
          <>
            <p role="status">
              Ollama is running at <code>{d.host}</code> with {d.models.length === 1 ? '1 model' : `${d.models.length} models`}. Choose one on the{' '}
              <Link to="/analyse">Analyse</Link> page; analyses stay on this computer.
            </p>
            <table className="list">
              <caption className="visually-hidden">Models installed in Ollama</caption>
              <thead>
                <tr>
                  <th scope="col">Model</th>
                  <th scope="col">Size on disk</th>
                </tr>
              </thead>
              <tbody>
                {d.models.map((m) => (
                  <tr key={m.name}>
                    <td>
                      <code>{m.name}</code>
                    </td>
                    <td>{gigabytes(m.size)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <div className="actions">{recheck}</div>
          </>
        ) : (
          <>
            <div className="state unavailable" role="status">
              <p>
                <strong>{diagnosis(d.message)}</strong>
              </p>
            </div>
            <h2>How to get a local model</h2>
            <InstallSteps running={d.status === 'no_model'} />
            <p className="muted">
              Ollama is looked for at the address in the <code>OLLAMA_HOST</code> environment variable, else 127.0.0.1:11434. A cloud provider works too, with
              your own key, under Organization › Credentials.
            </p>
            <div className="actions">{recheck}</div>
          </>
        )
      }
    </QueryView>
  );
}
