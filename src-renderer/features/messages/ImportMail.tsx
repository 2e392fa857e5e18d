import { type RefObject, useEffect, useRef, useState } from 'react';
import { ApiError } from '../../../src-shared/clients';
import { fileMessages, type NumberedMessage } from '../../../src-shared/mbox';
import { control, describeError } from '../../api/clients';
import { useChosenAccount, useChosenGone } from '../../components/AccountSelect';
import { useOverview } from '../../stores/overview-store';

/** One message a file holds: the file's name and, in an mbox, its number there. */
interface FileMessage extends NumberedMessage {
  file: string;
}

/** A file or message that was not imported, and why (the emulator's words). */
interface Problem {
  where: string;
  problem: string;
}

interface Result {
  messages: number;
  copies: number;
  problems: Problem[];
  /** The emulator could not be reached: the import stopped there. */
  stopped: string | null;
}

type Phase = { state: 'idle' } | { state: 'reading' } | { state: 'importing'; done: number; total: number; at: string } | { state: 'done'; result: Result };

const whereOf = (m: { file: string; number: number | null }) => (m.number === null ? m.file : `${m.file}, message ${m.number}`);

const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** The request's base64, a chunk at a time (one call with a large file's bytes would overflow the stack). */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** A file's messages: an mbox's each (mboxrd), any other file as one message. */
async function messagesOf(file: File, problems: Problem[]): Promise<FileMessage[]> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await file.arrayBuffer());
  } catch {
    // A dropped folder is an entry that cannot be read.
    problems.push({ where: file.name, problem: 'could not be read (a folder? drop the files in it)' });
    return [];
  }
  return fileMessages(bytes).map((m) => ({ file: file.name, ...m }));
}

export interface MailImport {
  phase: Phase;
  /** Files are being dragged over the window. */
  over: boolean;
  disabled: boolean;
  /** The account the mail goes to, when there are several to tell apart. */
  into: string | null;
  picker: RefObject<HTMLInputElement | null>;
  run: (files: File[]) => Promise<void>;
  close: () => void;
}

/**
 * Mail brought in from files, as `mailyard import` does it: each message captured as if it had arrived
 * over SMTP, one request a message (all its copies or none), for the account in the header (the
 * default one when the list shows every account). What could not be imported is named, with its file,
 * its number in an mbox and the emulator's reason; the rest is imported. Files are dropped anywhere on
 * the Messages screen (the window takes them while it is open) or chosen with Import….
 */
export function useMailImport(): MailImport {
  const accounts = useOverview((s) => s.accounts);
  const [account] = useChosenAccount(accounts);
  const gone = useChosenGone();
  const [phase, setPhase] = useState<Phase>({ state: 'idle' });
  const [over, setOver] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  const busy = phase.state === 'reading' || phase.state === 'importing';
  // Nothing is imported as another account than the one chosen (see ChosenAccountGone).
  const disabled = busy || gone !== null || account === undefined;

  const run = async (files: File[]) => {
    if (disabled || files.length === 0 || account === undefined) return;
    setPhase({ state: 'reading' });
    const problems: Problem[] = [];
    const messages: FileMessage[] = [];
    for (const file of files) messages.push(...(await messagesOf(file, problems)));
    const result: Result = { messages: 0, copies: 0, problems, stopped: null };
    for (const [i, m] of messages.entries()) {
      setPhase({ state: 'importing', done: i, total: messages.length, at: whereOf(m) });
      try {
        const answer = await control.importMessage({ raw: base64(m.raw), account_id: account.id });
        result.messages++;
        result.copies += answer.data.recipients.length;
      } catch (err) {
        if (!(err instanceof ApiError)) {
          result.stopped = `${describeError(err)}: the import stopped at ${whereOf(m)}`;
          break;
        }
        problems.push({ where: whereOf(m), problem: describeError(err) });
      }
    }
    setPhase({ state: 'done', result });
  };
  const latest = useRef(run);
  latest.current = run;

  // The whole window is the drop zone while the screen is open: files dragged over it are offered to the import.
  useEffect(() => {
    const carriesFiles = (e: DragEvent) => [...(e.dataTransfer?.types ?? [])].includes('Files');
    let depth = 0;
    const onEnter = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      depth++;
      setOver(true);
    };
    const onLeave = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setOver(false);
    };
    const onOver = (e: DragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const onDrop = (e: DragEvent) => {
      if (!e.dataTransfer || e.dataTransfer.files.length === 0) return;
      e.preventDefault();
      depth = 0;
      setOver(false);
      void latest.current([...e.dataTransfer.files]);
    };
    window.addEventListener('dragenter', onEnter);
    window.addEventListener('dragleave', onLeave);
    window.addEventListener('dragover', onOver);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragenter', onEnter);
      window.removeEventListener('dragleave', onLeave);
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('drop', onDrop);
    };
  }, []);

  return { phase, over, disabled, into: accounts.length > 1 && account ? account.name : null, picker, run, close: () => setPhase({ state: 'idle' }) };
}

/** The toolbar's Import… button and its file picker. */
export function ImportButton({ imp }: { imp: MailImport }) {
  return (
    <>
      <button
        type="button"
        className="button small"
        disabled={imp.disabled}
        title="Import .eml or mbox files (or drop them on this screen)"
        onClick={() => imp.picker.current?.click()}
      >
        Import…
      </button>
      <input
        ref={imp.picker}
        type="file"
        multiple
        hidden
        accept=".eml,.mbox,.mbx,message/rfc822,application/mbox"
        aria-label="Mail files to import"
        data-testid="mail-import-files"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          // The same file can be chosen again.
          e.target.value = '';
          void imp.run(files);
        }}
      />
    </>
  );
}

/** While files are dragged over the window, what a drop does; then the import's progress and result. */
export function ImportStatus({ imp }: { imp: MailImport }) {
  return (
    <>
      {imp.over && (
        <div className={`mail-import-drop${imp.disabled ? ' refused' : ''}`} data-testid="mail-import-drop" aria-hidden="true">
          {imp.disabled ? (
            'Mail cannot be imported now'
          ) : (
            <>
              Drop <code>.eml</code> or mbox files to import them{imp.into && <> into {imp.into}</>}
            </>
          )}
        </div>
      )}
      <ImportProgress phase={imp.phase} onClose={imp.close} />
    </>
  );
}

function ImportProgress({ phase, onClose }: { phase: Phase; onClose: () => void }) {
  if (phase.state === 'idle') return null;
  if (phase.state === 'reading')
    return (
      <p className="small" role="status">
        Reading the files…
      </p>
    );
  if (phase.state === 'importing')
    return (
      <div className="mail-import-progress" role="status" data-testid="mail-import-progress">
        <progress value={phase.done} max={phase.total} aria-label="Messages imported" />
        <span className="small">
          Importing {(phase.done + 1).toLocaleString()} of {plural(phase.total, 'message', 'messages')}: {phase.at}
        </span>
      </div>
    );
  const { result } = phase;
  const failed = result.problems.length > 0 || result.stopped !== null;
  return (
    <div className="mail-import-result" role={failed ? 'alert' : 'status'} data-testid="mail-import-result">
      <p className="small">
        <strong>
          Imported {plural(result.messages, 'message', 'messages')} ({plural(result.copies, 'copy', 'copies')})
        </strong>
        {result.problems.length > 0 && <>; {plural(result.problems.length, 'was', 'were')} not imported:</>}
        {result.problems.length === 0 && result.stopped === null && '.'}{' '}
        <button type="button" className="button small" onClick={onClose}>
          Close
        </button>
      </p>
      {result.problems.length > 0 && (
        <ul className="mail-import-problems">
          {result.problems.map((p, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the same file can be dropped twice; the list never changes once shown
            <li key={i}>
              <span className="mail-import-where">{p.where}</span>: {p.problem}
            </li>
          ))}
        </ul>
      )}
      {result.stopped && <p className="error small">{result.stopped}</p>}
    </div>
  );
}
