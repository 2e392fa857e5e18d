import { type ReactNode, useEffect, useRef, useState } from 'react';

/**
 * An in-app confirmation (a modal <dialog>, never window.confirm): the question, what it does, and two
 * buttons; Escape or Cancel closes it, the focus starts on Cancel so Enter never destroys by accident,
 * and goes back to what opened it once closed.
 */
export function ConfirmDialog(p: { title: string; children: ReactNode; confirmLabel: string; busy?: boolean; onConfirm: () => void; onCancel: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  // What had the focus when it opened (the button that asked): read before the dialog takes it.
  const [opener] = useState(() => document.activeElement);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => {
      d?.close();
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
    };
  }, [opener]);
  return (
    <dialog
      ref={ref}
      className="confirm-dialog"
      aria-labelledby="confirm-dialog-title"
      data-testid="confirm-dialog"
      onCancel={(e) => {
        e.preventDefault();
        p.onCancel();
      }}
    >
      <h2 id="confirm-dialog-title">{p.title}</h2>
      <div className="confirm-dialog-body">{p.children}</div>
      <div className="confirm-dialog-actions">
        {/* biome-ignore lint/a11y/noAutofocus: a confirmation starts on its safe choice, Cancel */}
        <button type="button" className="button" autoFocus onClick={p.onCancel}>
          Cancel
        </button>
        <button type="button" className="button danger" disabled={p.busy} onClick={p.onConfirm}>
          {p.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
