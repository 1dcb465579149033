import { defineEntity, p } from '@mikro-orm/core';

export const IdempotencyKeyEntity = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_key',
  properties: {
    principal: p.string().primary(),
    key: p.string().primary(),
    requestHash: p.string(),
    responseStatus: p.integer(),
    responseBody: p.json<unknown>(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
