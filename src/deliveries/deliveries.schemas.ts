import { type Static, Type } from '@sinclair/typebox';
import { CappedPageOf, Nullable, ref, StringEnum, Timestamp } from '../lib/schema.js';

export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;

/** One attempt to deliver a webhook, as its log shows it. */
export const DeliveryAttemptView = Type.Object(
  {
    at: Timestamp(),
    status: Nullable(Type.Integer(), { description: "The receiver's HTTP status; null when none came back" }),
    latencyMs: Type.Number(),
    error: Nullable(Type.String()),
    errorCode: Nullable(Type.String()),
    responseExcerpt: Nullable(Type.String()),
  },
  { $id: 'DeliveryAttempt' },
);

/** A delivery as the API shows it, with its attempt log oldest first (docs/interface.md#deliveries). */
export const DeliveryView = Type.Object(
  {
    id: Type.String(),
    integrationId: Type.String(),
    callId: Type.String(),
    webhookId: Type.String(),
    state: StringEnum(DELIVERY_STATES),
    attempts: Type.Array(ref(DeliveryAttemptView)),
    attemptCount: Type.Integer(),
    nextAttemptAt: Nullable(Timestamp(), { description: 'When pending: the next attempt' }),
    failureReason: Nullable(Type.String()),
    payloadTruncated: Type.Boolean(),
    createdAt: Timestamp(),
    updatedAt: Timestamp(),
  },
  { $id: 'Delivery' },
);
export type DeliveryView = Static<typeof DeliveryView>;

export const DeliveryPage = CappedPageOf(ref(DeliveryView), 'DeliveryPage', 'deliveries');

export const DELIVERY_VIEWS = [DeliveryAttemptView, DeliveryView, DeliveryPage];
