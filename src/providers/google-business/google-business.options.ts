import type { OptionsSchema } from '../provider-plugin';
import type { Problem } from '../social-provider.interface';

export const GBP_TOPIC_TYPES = ['STANDARD', 'EVENT', 'OFFER'] as const;
export type GbpTopicType = (typeof GBP_TOPIC_TYPES)[number];
/** Google's call-to-action buttons; CALL dials the location's phone number and takes no URL. */
export const GBP_ACTION_TYPES = ['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'CALL'] as const;
export type GbpActionType = (typeof GBP_ACTION_TYPES)[number];
/** An event's title: Google takes at most 58 characters. */
export const GBP_MAX_EVENT_TITLE = 58;

/** A local date `YYYY-MM-DD` or date and time `YYYY-MM-DDTHH:MM` (the location's own time). */
const LOCAL_DATE_TIME = '^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2})?$';
const HTTP_URL = '^https?://[^\\s]+$';

/** A Google Business Profile target's own settings (`targets[i].options`), as the adapter reads them. */
export interface GoogleBusinessOptions {
  topicType?: GbpTopicType;
  /** BCP 47 language of the post, e.g. `en` or `pt-BR`. */
  languageCode?: string;
  callToAction?: { actionType: GbpActionType; url?: string };
  event?: { title: string; schedule: { start: string; end: string } };
  offer?: { couponCode?: string; redeemOnlineUrl?: string; termsConditions?: string };
}

const when = (topicType: GbpTopicType) => ({
  if: { properties: { topicType: { const: topicType } }, required: ['topicType'] },
});

/**
 * The JSON Schema of Google Business Profile's options (`optionsSchema` in `GET /providers`), closed.
 * The rules of Google's local posts are in the schema, so a problem names its field: an EVENT or an
 * OFFER needs `event` (title and schedule: an offer runs over its event's dates), `offer` goes only
 * with OFFER and `event` only with EVENT or OFFER, and a call-to-action needs a URL except CALL.
 */
export const GOOGLE_BUSINESS_OPTIONS_SCHEMA: OptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    topicType: {
      type: 'string',
      enum: [...GBP_TOPIC_TYPES],
      default: 'STANDARD',
      description: 'Kind of local post: STANDARD (what is new), EVENT or OFFER (both need event)',
    },
    languageCode: {
      type: 'string',
      pattern: '^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$',
      description: 'Language of the post (BCP 47, e.g. en or pt-BR)',
    },
    callToAction: {
      type: 'object',
      additionalProperties: false,
      required: ['actionType'],
      properties: {
        actionType: {
          type: 'string',
          enum: [...GBP_ACTION_TYPES],
          description: 'Button shown on the post; CALL dials the location and takes no url',
        },
        url: { type: 'string', maxLength: 2048, pattern: HTTP_URL, description: 'Where the button leads' },
      },
      if: { properties: { actionType: { const: 'CALL' } }, required: ['actionType'] },
      else: { properties: { url: {} }, required: ['url'] },
      description: 'A button on the post: actionType, and url unless the action is CALL',
    },
    event: {
      type: 'object',
      additionalProperties: false,
      required: ['title', 'schedule'],
      properties: {
        title: { type: 'string', minLength: 1, maxLength: GBP_MAX_EVENT_TITLE, description: 'Name of the event' },
        schedule: {
          type: 'object',
          additionalProperties: false,
          required: ['start', 'end'],
          properties: {
            start: {
              type: 'string',
              pattern: LOCAL_DATE_TIME,
              description: "Start, in the location's time: YYYY-MM-DD or YYYY-MM-DDTHH:MM",
            },
            end: {
              type: 'string',
              pattern: LOCAL_DATE_TIME,
              description: "End, in the location's time: YYYY-MM-DD or YYYY-MM-DDTHH:MM",
            },
          },
        },
      },
      description: 'The event (EVENT) or the dates of the offer (OFFER): title and schedule {start, end}',
    },
    offer: {
      type: 'object',
      additionalProperties: false,
      properties: {
        couponCode: { type: 'string', minLength: 1, maxLength: 58, description: 'Code to use in store or online' },
        redeemOnlineUrl: { type: 'string', maxLength: 2048, pattern: HTTP_URL, description: 'Where to redeem it' },
        termsConditions: { type: 'string', minLength: 1, maxLength: 5000, description: 'Terms of the offer' },
      },
      description: 'Details of an OFFER: couponCode, redeemOnlineUrl, termsConditions',
    },
  },
  allOf: [
    { ...when('EVENT'), then: { properties: { event: {} }, required: ['event'] } },
    { ...when('OFFER'), then: { properties: { event: {} }, required: ['event'] } },
    {
      if: { properties: { offer: {} }, required: ['offer'] },
      then: { required: ['topicType'], properties: { topicType: { const: 'OFFER' } } },
    },
    {
      if: { properties: { event: {} }, required: ['event'] },
      then: { required: ['topicType'], properties: { topicType: { enum: ['EVENT', 'OFFER'] } } },
    },
  ],
};

/** A Google Date and TimeOfDay from `YYYY-MM-DD[THH:MM]`. */
export function googleDateTime(value: string): {
  date: { year: number; month: number; day: number };
  time: { hours: number; minutes: number; seconds: number; nanos: number } | null;
} {
  const [date, time] = value.split('T');
  const [year, month, day] = date.split('-').map(Number);
  const [hours, minutes] = time ? time.split(':').map(Number) : [];
  return {
    date: { year, month, day },
    time: time ? { hours, minutes, seconds: 0, nanos: 0 } : null,
  };
}

/** Whether `YYYY-MM-DD[THH:MM]` is a real calendar date and time of day. */
function isRealDateTime(value: string): boolean {
  const { date, time } = googleDateTime(value);
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day));
  const realDate =
    d.getUTCFullYear() === date.year && d.getUTCMonth() === date.month - 1 && d.getUTCDate() === date.day;
  return realDate && (!time || (time.hours < 24 && time.minutes < 60));
}

/**
 * What the schema cannot say about valid options: real dates, an end not before the start, and no
 * URL on a CALL button. Fields are named `options.<path>`.
 */
export function googleBusinessOptionProblems(options: Record<string, unknown> | undefined): Problem[] {
  const o = (options ?? {}) as GoogleBusinessOptions;
  const problems: Problem[] = [];
  const schedule = o.event?.schedule;
  if (schedule && typeof schedule.start === 'string' && typeof schedule.end === 'string') {
    for (const name of ['start', 'end'] as const) {
      if (new RegExp(LOCAL_DATE_TIME).test(schedule[name]) && !isRealDateTime(schedule[name])) {
        problems.push({ field: `options.event.schedule.${name}`, message: 'is not a real date and time' });
      }
    }
    // Date-only ends run to the end of their day.
    const key = (v: string, end: boolean) => (v.includes('T') ? v : `${v}T${end ? '24:00' : '00:00'}`);
    if (problems.length === 0 && key(schedule.end, true) < key(schedule.start, false)) {
      problems.push({ field: 'options.event.schedule.end', message: 'must not be before event.schedule.start' });
    }
  }
  if (o.callToAction?.actionType === 'CALL' && o.callToAction.url !== undefined) {
    problems.push({
      field: 'options.callToAction.url',
      message: "must be left out for CALL: the button dials the location's phone number",
    });
  }
  return problems;
}
