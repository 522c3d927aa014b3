import { describe, expect, it } from 'vitest';
import { PROTO_NAMES } from '../../generated/a2a/1.0/proto-names.js';
import { toJsonNames } from '../../src/protocol/proto-names.js';

/** The renaming of proto field names to JSON names, on its own: what it copies, what it leaves. */
describe('toJsonNames', () => {
  it('hands back the very same value when no member is proto-named', () => {
    const params = {
      message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }], metadata: { a_b: 1 } },
      configuration: { historyLength: 2 },
    };
    const normalised = toJsonNames(PROTO_NAMES, 'SendMessageRequest', params);
    expect(normalised.ok && normalised.value).toBe(params);
  });

  it('renames along the schema without changing the input', () => {
    const params = {
      message: { message_id: 'm', parts: [{ text: 'hi', media_type: 'text/plain' }] },
      configuration: { return_immediately: true },
    };
    const before = JSON.stringify(params);
    expect(toJsonNames(PROTO_NAMES, 'SendMessageRequest', params)).toEqual({
      ok: true,
      value: { message: { messageId: 'm', parts: [{ text: 'hi', mediaType: 'text/plain' }] }, configuration: { returnImmediately: true } },
    });
    expect(JSON.stringify(params)).toBe(before);
  });

  it('leaves members that are no proto field name of the message as they are', () => {
    const params = JSON.parse('{"id":"t","__proto__":{"x":1},"has_own":2,"constructor_":3}') as Record<string, unknown>;
    const normalised = toJsonNames(PROTO_NAMES, 'GetTaskRequest', params);
    expect(normalised.ok && normalised.value).toBe(params);
  });

  it('compares the two spellings after renaming inside them', () => {
    const params = {
      task_push_notification_config: { task_id: 't', url: 'https://a.example' },
      taskPushNotificationConfig: { taskId: 't', url: 'https://a.example' },
    };
    expect(toJsonNames(PROTO_NAMES, 'SendMessageConfiguration', params, 'params.configuration')).toEqual({
      ok: true,
      value: { taskPushNotificationConfig: { taskId: 't', url: 'https://a.example' } },
    });
  });
});
