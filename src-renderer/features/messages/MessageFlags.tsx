import { useState } from 'react';
import type { MessageDetail } from '../../../src-shared/schemas/messages';
import { useMessages } from '../../stores/messages-store';

/** A copy's tags as chips (the list's rows and the detail show the same). */
export function TagChips({ tags, onRemove }: { tags: readonly string[]; onRemove?: (tag: string) => void }) {
  return (
    <>
      {tags.map((tag) => (
        <span key={tag} className="tag-chip" data-testid="message-tag">
          {tag}
          {onRemove && (
            <button type="button" className="tag-remove" aria-label={`Remove tag ${tag}`} title={`Remove tag ${tag}`} onClick={() => onRemove(tag)}>
              ×
            </button>
          )}
        </span>
      ))}
    </>
  );
}

/** The open copy's tags: each removable, and a field that adds one (Enter). */
export function TagEditor({ d }: { d: MessageDetail }) {
  const setTags = useMessages((s) => s.setTags);
  const [draft, setDraft] = useState('');
  const add = () => {
    const tag = draft.trim();
    if (!tag) return;
    setDraft('');
    if (!d.tags.some((t) => t.toLowerCase() === tag.toLowerCase())) void setTags(d.id, [...d.tags, tag]);
  };
  return (
    <div className="tag-editor" data-testid="message-tags">
      <TagChips
        tags={d.tags}
        onRemove={(tag) =>
          void setTags(
            d.id,
            d.tags.filter((t) => t !== tag),
          )
        }
      />
      <input
        className="input tag-input"
        aria-label="Add a tag"
        placeholder="Add a tag"
        maxLength={100}
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            add();
          }
        }}
      />
    </div>
  );
}

/** Mark the open copy read or unread (opening it read it). */
export function ReadToggle({ d }: { d: MessageDetail }) {
  const markRead = useMessages((s) => s.markRead);
  return (
    <button type="button" className="button" data-testid="message-read-toggle" onClick={() => void markRead(d.id, !d.read)}>
      {d.read ? 'Mark unread' : 'Mark read'}
    </button>
  );
}
