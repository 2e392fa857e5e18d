import type { MessageChecks, SpamCheck } from '../../../../src-shared/schemas/checks';
import type { Spamd } from '../../spamd/spamd';
import type { MessagesService } from '../email/messages.service';
import type { TokenLookup } from '../email/preview';

export interface ChecksDeps {
  messages: MessagesService;
  /** What a tracking token stands for (a tracked link's own URL). */
  token: TokenLookup;
  spamd: Spamd;
  /** Whether `--spam-filter spamassassin` acts on scores (a spam event), said with each score. */
  spamFilterOn: boolean;
}

/** The checks' code (an HTML parser, caniemail's data) loads with the first check: most runs ask for none. */
const loadChecks = () => Promise.all([import('./compat'), import('./links')]);

/** A captured message's Checks tab: its links, its HTML against email clients, and SpamAssassin's score. */
export class ChecksService {
  constructor(private readonly deps: ChecksDeps) {}

  /** Links and compatibility: computed from the HTML part as the sender wrote it. */
  async checks(id: string): Promise<MessageChecks> {
    const html = await this.deps.messages.html(id);
    const [{ checkCompatibility, COMPAT_SOURCE }, { checkLinks, isRemoteImage, scanHtml }] = await loadChecks();
    if (html === null) {
      return { id, has_html: false, html: null, links: [], remote_images: 0, compatibility: { source: COMPAT_SOURCE, findings: [], families: [] } };
    }
    const { images } = scanHtml(html);
    return {
      id,
      has_html: true,
      html,
      links: checkLinks(html, this.deps.token),
      remote_images: images.filter(isRemoteImage).length,
      compatibility: { source: COMPAT_SOURCE, ...checkCompatibility(html) },
    };
  }

  /** SpamAssassin's verdict on the raw message (spamd starts on first use). */
  async spam(id: string): Promise<SpamCheck> {
    const verdict = await this.deps.spamd.check(this.deps.messages.raw(id));
    return verdict.status === 'ok' ? { ...verdict, spam_filter: this.deps.spamFilterOn } : verdict;
  }
}
