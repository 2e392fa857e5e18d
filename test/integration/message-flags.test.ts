import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type TestEmulator } from '../helpers/emulator';

/** Read state and tags through the control API (what the Messages screen calls), seen by the lists, the search and Mailpit's API. */
let emu: TestEmulator;

beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.cleanup());

async function send(subject: string) {
  await emu.service.sendEmail({
    from: { email: 'app@example.com' },
    to: [{ email: 'ann@example.com' }],
    subject,
    content: [{ type: 'text/plain', value: 'hello' }],
  });
  return (await emu.control.listMessages({ q: `subject:"${subject}"` })).data.messages[0]!;
}

describe('read state and tags of a captured message', () => {
  it('a new copy is unread with no tags; marking it read and tagging it shows in the list, the detail, the search and Mailpit', async () => {
    const copy = await send('Flag me');
    expect(copy).toMatchObject({ read: false, tags: [] });

    expect((await emu.control.setMessageRead(copy.id, { read: true })).data).toEqual({ id: copy.id, read: true, tags: [] });
    const tagged = await emu.control.setMessageTags(copy.id, { tags: ['Signup', 'urgent', 'SIGNUP'] });
    expect(tagged.data).toEqual({ id: copy.id, read: true, tags: ['SIGNUP', 'urgent'] });

    expect((await emu.control.getMessage(copy.id)).data).toMatchObject({ read: true, tags: ['SIGNUP', 'urgent'] });
    const listed = (await emu.control.listMessages({ q: 'tag:signup is:read' })).data.messages;
    expect(listed.map((m) => [m.id, m.read, m.tags])).toEqual([[copy.id, true, ['SIGNUP', 'urgent']]]);
    const mailpit = await emu.request('GET', `/api/v1/message/${copy.id}`);
    expect(mailpit.json).toMatchObject({ Tags: ['SIGNUP', 'urgent'] });

    await emu.control.setMessageRead(copy.id, { read: false });
    await emu.control.setMessageTags(copy.id, { tags: [] });
    expect((await emu.control.listMessages({ q: 'is:unread subject:"Flag me"' })).data.messages.map((m) => [m.read, m.tags])).toEqual([[false, []]]);
  });

  it('refuses an unknown message (404) and a bad tag or read value (400), naming the problem', async () => {
    const copy = await send('Refusals');
    const unknown = await emu.request('PUT', '/emulator/messages/01NOSUCHMESSAGE00000000000/read', { body: { read: true } });
    expect([unknown.status, unknown.json.error]).toEqual([404, 'Message Not Found']);
    const missing = await emu.request('PUT', '/emulator/messages/01NOSUCHMESSAGE00000000000/tags', { body: { tags: ['x'] } });
    expect(missing.status).toBe(404);
    const blank = await emu.request('PUT', `/emulator/messages/${copy.id}/tags`, { body: { tags: ['  '] } });
    expect([blank.status, blank.json.error]).toEqual([400, expect.stringMatching(/tags\.0.*a tag must not be empty/)]);
    const notBool = await emu.request('PUT', `/emulator/messages/${copy.id}/read`, { body: { read: 'yes' } });
    expect([notBool.status, notBool.json.error]).toEqual([400, expect.stringMatching(/read must be true or false/)]);
  });
});
