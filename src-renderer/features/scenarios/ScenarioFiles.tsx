import { useCallback, useEffect, useState } from 'react';
import type { ScenarioFolder } from '../../../src-shared/operations/control/scenarios';
import { scenarios } from '../../api/scenarios';

/**
 * The scenario files of the folders Mailyard was started with (`--scenarios DIR`): the only scenarios
 * this screen runs with the app they start. Open puts one in the editor, as it is on disk.
 */
export function ScenarioFiles({ opened, onOpen }: { opened: string | null; onOpen: (path: string, source: string) => void }) {
  const [folders, setFolders] = useState<ScenarioFolder[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [opening, setOpening] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      setFolders((await scenarios.files()).folders);
      setError(null);
    } catch (err) {
      setError(`The scenario files cannot be listed: ${(err as Error).message}`);
    }
  }, []);
  useEffect(() => void load(), [load]);
  const open = async (path: string) => {
    setOpening(path);
    try {
      const file = await scenarios.file(path);
      onOpen(file.path, file.source);
      setError(null);
    } catch (err) {
      setError(`${path} cannot be opened: ${(err as Error).message}`);
    } finally {
      setOpening(null);
    }
  };
  return (
    <section className="card" aria-labelledby="scenario-files-title" data-testid="scenario-files">
      <div className="card-head">
        <h2 id="scenario-files-title">Scenario files</h2>
        <span className="muted small">Files in the folders Mailyard was started with: these run with the app they start.</span>
        <span className="spacer" />
        <button type="button" className="button small" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {folders === null && !error && <p className="muted">Loading…</p>}
      {folders?.length === 0 && (
        <p className="muted" data-testid="scenario-no-folders">
          No scenarios folder. A scenario that starts an app (its <code>app.command</code>) runs only from a file in a folder named when Mailyard starts, never
          from text sent to it: start it with <code>mailyard serve --scenarios DIR</code> (for the examples,{' '}
          <code>npm run serve -- --scenarios examples/scenarios</code>; in the desktop app, <strong>Allow a Scenarios Folder…</strong> in its menu), or run the
          file with <code>mailyard scenario run FILE</code>. Scenarios without an app run from the editor below.
        </p>
      )}
      {folders?.map((folder) => (
        <div key={folder.id} className="scenario-folder">
          <h3 className="small">
            <code>{folder.id}/</code> <span className="muted">{folder.dir}</span>
          </h3>
          {folder.problem && <p className="error">{folder.problem}</p>}
          {folder.files.length === 0 && !folder.problem && <p className="muted">No .yaml, .yml or .json file in it.</p>}
          <ul className="scenario-file-list" aria-label={`Scenario files in ${folder.id}`}>
            {folder.files.map((f) => (
              <li key={f.path} className="scenario-file">
                <span className="grow">
                  <strong>{f.name ?? f.path.slice(folder.id.length + 1)}</strong> <code className="muted small">{f.path}</code>
                </span>
                {f.starts_app && <span className="pill tone-info">starts an app</span>}
                {!f.valid && <span className="pill tone-bad">not valid</span>}
                <button
                  type="button"
                  className="button small"
                  aria-current={opened === f.path ? 'true' : undefined}
                  aria-label={`Open ${f.path}`}
                  disabled={opening !== null}
                  onClick={() => void open(f.path)}
                >
                  {opened === f.path ? 'Opened' : 'Open'}
                </button>
              </li>
            ))}
          </ul>
          {folder.truncated && <p className="muted small">More files than are listed: a folder lists at most 200.</p>}
        </div>
      ))}
    </section>
  );
}
