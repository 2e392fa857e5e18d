import { type KeyboardEvent, type ReactNode, useId, useRef } from 'react';

export interface TabItem<K extends string> {
  id: K;
  label: ReactNode;
}

interface TabsProps<K extends string> {
  tabs: ReadonlyArray<TabItem<K>>;
  selected: K;
  onSelect: (id: K) => void;
  /** The tab list's accessible name ("Message parts"). */
  label: string;
  /** The selected tab's panel. */
  children: ReactNode;
}

/**
 * Tabs after the WAI-ARIA tabs pattern: a `tablist` whose selected tab alone is in the Tab order (a
 * roving tabindex), Left/Right move to the previous/next tab (wrapping), Home/End to the first/last,
 * and a tab is selected as it gets focus; the panel is labelled by its tab. The bar wraps its tabs
 * onto more lines in a narrow window, so none runs off the edge.
 */
export function Tabs<K extends string>({ tabs, selected, onSelect, label, children }: TabsProps<K>) {
  const base = useId();
  const list = useRef<HTMLDivElement>(null);
  const tabId = (id: K) => `${base}-tab-${id}`;
  const panelId = `${base}-panel`;
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const i = tabs.findIndex((t) => t.id === selected);
    const to = e.key === 'ArrowRight' ? i + 1 : e.key === 'ArrowLeft' ? i - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? tabs.length - 1 : null;
    if (to === null || tabs.length === 0) return;
    e.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length]!;
    onSelect(next.id);
    list.current?.querySelector<HTMLButtonElement>(`#${CSS.escape(tabId(next.id))}`)?.focus();
  };
  return (
    <>
      <div ref={list} className="tabs" role="tablist" aria-label={label} onKeyDown={onKeyDown}>
        {tabs.map((t) => {
          const on = t.id === selected;
          return (
            <button
              key={t.id}
              id={tabId(t.id)}
              role="tab"
              type="button"
              aria-selected={on}
              aria-controls={on ? panelId : undefined}
              tabIndex={on ? 0 : -1}
              className={`tab${on ? ' on' : ''}`}
              onClick={() => onSelect(t.id)}
            >
              {t.label}
            </button>
          );
        })}
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the tab panel takes the focus after its tab, as the WAI-ARIA tabs pattern has it */}
      <div className="tab-body" role="tabpanel" id={panelId} aria-labelledby={tabId(selected)} tabIndex={0}>
        {children}
      </div>
    </>
  );
}
