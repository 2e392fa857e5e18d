import type { ReactNode } from 'react';
import { onLinkClick, useSearchParam, withAccount } from '../router';

/** An in-app link: a real href (open in a new tab works, with the chosen account), navigation in place on a plain click. */
export function Link({ to, children, className, title }: { to: string; children: ReactNode; className?: string; title?: string }) {
  // Read so the href follows a change of account.
  useSearchParam('account');
  return (
    <a href={withAccount(to)} className={className} title={title} onClick={(e) => onLinkClick(e, to)}>
      {children}
    </a>
  );
}
