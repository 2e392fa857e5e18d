import { EMAIL_EVENT_KINDS, type EmailEventKind } from '../../src-shared/events';

/** A choice of one of the email event kinds (Fire event, a message's Fire, a simulation rule's events). */
export function EventKindSelect({ label, value, onChange }: { label: string; value: EmailEventKind; onChange: (kind: EmailEventKind) => void }) {
  return (
    <select className="input" aria-label={label} value={value} onChange={(e) => onChange(e.target.value as EmailEventKind)}>
      {EMAIL_EVENT_KINDS.map((k) => (
        <option key={k} value={k}>
          {k}
        </option>
      ))}
    </select>
  );
}
