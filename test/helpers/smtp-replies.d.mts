import type { Socket } from 'node:net';

/** A raw SMTP connection: `read()` resolves each reply in order (see smtp-replies.mjs). */
export function openSmtp(port: number): Promise<{ socket: Socket; read: () => Promise<{ code: number; line: string }> }>;
