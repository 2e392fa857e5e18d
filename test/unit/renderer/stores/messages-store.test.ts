import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageDetail, MessageFlags, MessageSummary } from '../../../../src-shared/schemas/messages';

// The store talks to the server through the derived control client and listens to the live stream:
// both are replaced here, so a test decides when each answer arrives.
const control = vi.hoisted(() => ({
  getMessage: vi.fn(),
  listMessages: vi.fn(),
  countMessages: vi.fn(),
  setMessageRead: vi.fn(),
  setMessageTags: vi.fn(),
}));
vi.mock('../../../../src-renderer/api/clients', () => ({ control, describeError: (err: unknown) => String(err) }));
vi.mock('../../../../src-renderer/api/live', () => ({ live: { on: () => () => {}, onReconnect: () => () => {} } }));
vi.stubGlobal('window', globalThis);

const { useMessages } = await import('../../../../src-renderer/stores/messages-store');

const ID = '01JMESSAGE0000000000000001';
const detail = (read: boolean, tags: string[] = []) => ({ id: ID, ref_id: 'ref-1', read, tags, events: [] }) as unknown as MessageDetail;
const summary = (read: boolean, tags: string[] = []) => ({ id: ID, ref_id: 'ref-1', status: 'delivered', read, tags }) as unknown as MessageSummary;
const flags = (read: boolean, tags: string[] = []): { data: MessageFlags } => ({ data: { id: ID, read, tags } });

/** A promise the test resolves when it chooses. */
function held<T>() {
  let release!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

describe('the Messages store keeps a read-state or tag change over an older reading of the server', () => {
  beforeEach(async () => {
    vi.clearAllMocks();
    control.listMessages.mockResolvedValue({ data: { messages: [summary(true)], next_cursor: null } });
    control.countMessages.mockResolvedValue({ data: { count: 1 } });
    control.getMessage.mockResolvedValueOnce({ data: detail(true) });
    useMessages.setState({ selected: null, detail: null, rows: [] });
    await useMessages.getState().reload();
    await useMessages.getState().select(ID);
    expect(useMessages.getState().detail?.read).toBe(true);
  });

  it('an open copy read again while "Mark unread" is under way stays unread, in its page and its row', async () => {
    // A live change makes the screen read the open copy again; the server answers from before the click.
    const stale = held<{ data: MessageDetail }>();
    control.getMessage.mockReturnValueOnce(stale.promise);
    const refreshing = useMessages.getState().refreshDetail();
    control.setMessageRead.mockResolvedValueOnce(flags(false));
    await useMessages.getState().markRead(ID, false);
    stale.release({ data: detail(true) });
    await refreshing;
    expect(useMessages.getState().detail?.read).toBe(false);
    expect(useMessages.getState().rows[0]?.read).toBe(false);
  });

  it('a reading begun while the change is on its way, answered after it, does not undo it', async () => {
    const write = held<{ data: MessageFlags }>();
    control.setMessageTags.mockReturnValueOnce(write.promise);
    const tagging = useMessages.getState().setTags(ID, ['vip']);
    // The server may answer the reading from before the change (two connections, either first).
    const staleDetail = held<{ data: MessageDetail }>();
    const staleList = held<{ data: { messages: MessageSummary[]; next_cursor: null } }>();
    control.getMessage.mockReturnValueOnce(staleDetail.promise);
    control.listMessages.mockReturnValueOnce(staleList.promise);
    const refreshing = useMessages.getState().refreshDetail();
    const reloading = useMessages.getState().reload();
    write.release(flags(true, ['vip']));
    await tagging;
    staleDetail.release({ data: detail(true) });
    staleList.release({ data: { messages: [summary(true)], next_cursor: null } });
    await Promise.all([refreshing, reloading]);
    expect(useMessages.getState().detail?.tags).toEqual(['vip']);
    expect(useMessages.getState().rows[0]?.tags).toEqual(['vip']);
  });

  it('a reading begun after the change shows the server as it is', async () => {
    control.setMessageRead.mockResolvedValueOnce(flags(false));
    await useMessages.getState().markRead(ID, false);
    control.getMessage.mockResolvedValueOnce({ data: detail(true, ['set elsewhere']) });
    await useMessages.getState().refreshDetail();
    expect(useMessages.getState().detail).toMatchObject({ read: true, tags: ['set elsewhere'] });
  });
});
