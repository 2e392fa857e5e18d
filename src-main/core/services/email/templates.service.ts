import { MAX_TEMPLATES, type TemplateBody, type TemplateRecord } from '../../../../src-shared/schemas/templates';
import { type Clock, isoTimestamp } from '../../clock';
import { appError } from '../../error-catalogue';
import { monotonicUlids } from '../../ids';
import type { TemplateRow, TemplatesRepo } from '../../store/templates.repo';
import { placeholdersOf } from './substitute';

/** A template as a send uses it. */
export interface StoredTemplate {
  subject: string;
  content: TemplateBody['content'];
}

function toRecord(row: TemplateRow): TemplateRecord {
  const content = JSON.parse(row.content) as TemplateBody['content'];
  return {
    template_id: row.id,
    name: row.name,
    subject: row.subject,
    content,
    variables: placeholdersOf(row.subject, ...content.map((c) => c.value)),
    created_at: row.created_at,
  };
}

export interface TemplatesDeps {
  repo: TemplatesRepo;
  clock: Clock;
}

/** Email templates: stored per account, filled by a send's substitutions (`template_id`). */
export class TemplatesService {
  private readonly newId = monotonicUlids();

  constructor(private readonly deps: TemplatesDeps) {}

  create(accountId: string, body: TemplateBody): TemplateRecord {
    if (this.deps.repo.count(accountId) >= MAX_TEMPLATES) {
      throw appError('tooManyTemplates');
    }
    const now = this.deps.clock.now();
    const row: TemplateRow = {
      id: `template_${this.newId(now)}`,
      account_id: accountId,
      name: body.name,
      subject: body.subject,
      content: JSON.stringify(body.content),
      created_at: isoTimestamp(now),
    };
    this.deps.repo.insert(row);
    return toRecord(row);
  }

  list(accountId: string): TemplateRecord[] {
    return this.deps.repo.list(accountId).map(toRecord);
  }

  get(accountId: string, templateId: string): TemplateRecord {
    const row = this.deps.repo.get(accountId, templateId);
    if (!row) throw appError('templateNotFound');
    return toRecord(row);
  }

  /** What a send takes from a template, or undefined when the account has none of that id. */
  forSend(accountId: string, templateId: string): StoredTemplate | undefined {
    const row = this.deps.repo.get(accountId, templateId);
    return row && { subject: row.subject, content: JSON.parse(row.content) as TemplateBody['content'] };
  }

  delete(accountId: string, templateId: string): void {
    if (!this.deps.repo.delete(accountId, templateId)) throw appError('templateNotFound');
  }
}
