import type { RouterOutputs as Outputs } from '../../api.ts';

export type TokenItem = Outputs['developerSettings']['tokens']['list'][number];
export type ScopeItem = Outputs['developerSettings']['scopes'][number];
export type OAuthAppItem = Outputs['developerSettings']['apps']['list'][number];

export type WebhookItem = Outputs['webhooks']['list']['data'][number];
export type WebhookEventKind = WebhookItem['events'][number];
export type DeliveryItem = Outputs['webhooks']['deliveries']['data'][number];
