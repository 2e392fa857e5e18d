/**
 * A captured message's checks, as the UI's Checks tab shows them: its links with their problems,
 * its HTML's compatibility with email clients (caniemail's data), and a SpamAssassin score.
 */

/** What is wrong with a link: `error` breaks it or makes it dangerous, `warning` should be looked at, `info` is worth knowing. */
export type LinkProblemLevel = 'error' | 'warning' | 'info';

export interface LinkProblem {
  code: 'empty' | 'unsafe_scheme' | 'relative' | 'insecure' | 'invalid' | 'duplicate' | 'tracked' | 'tracking_params';
  level: LinkProblemLevel;
  message: string;
}

export interface LinkCheck {
  /** The href as written in the HTML (entities decoded). */
  href: string;
  /** Where it leads: for a Mailyard tracked link, the URL it stands for; else the href. */
  url: string;
  /** The link's text (or an image's alt text), trimmed. */
  text: string;
  problems: LinkProblem[];
}

/** One caniemail feature the HTML uses that some clients lack or only partly have. */
export interface CompatFinding {
  /** caniemail's feature title, e.g. `display:flex`, `<video> element`. */
  feature: string;
  level: 'error' | 'warning';
  /** The clients, as caniemail names them: `outlook.windows`, `gmail.ios`… */
  clients: string[];
  /** caniemail's notes on the feature for those clients, each once. */
  notes: string[];
}

/** Per client family (`gmail`, `outlook`…): how many features are unsupported / partly supported. */
export interface CompatFamily {
  family: string;
  errors: number;
  warnings: number;
}

export interface MessageChecks {
  id: string;
  has_html: boolean;
  /** The HTML part as the sender wrote it (null without one). */
  html: string | null;
  links: LinkCheck[];
  /** Remote (http/https) images in the HTML, the tracking pixel not counted. */
  remote_images: number;
  compatibility: {
    /** Where the data comes from, e.g. `caniemail (@jsx-email/doiuse-email 1.0.4)`. */
    source: string;
    findings: CompatFinding[];
    families: CompatFamily[];
  };
}

export interface SpamRule {
  name: string;
  score: number;
  description: string;
}

/** SpamAssassin's score of a message. */
export interface SpamScore {
  status: 'ok';
  score: number;
  threshold: number;
  is_spam: boolean;
  rules: SpamRule[];
  version: string | null;
}

type NoScore = { status: 'unavailable'; reason: string } | { status: 'error'; reason: string };

/** What spamd answers: a score, or why there is none. */
export type SpamVerdict = SpamScore | NoScore;

/** The Checks tab's verdict: a score, or why there is none. */
export type SpamCheck =
  | (SpamScore & {
      /**
       * `--spam-filter spamassassin` is on: the simulation gives a send scored at or over the threshold
       * a spam event. Off (the default), the score is advice only: it changed nothing about the message.
       */
      spam_filter: boolean;
    })
  | NoScore;
