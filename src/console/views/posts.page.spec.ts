import { optionsText } from './posts.page';

describe('console post view: a target options line', () => {
  it('names flat options by field, nested ones by their path, and joins lists', () => {
    expect(optionsText({ visibility: 'unlisted', contentWarning: 'Spoilers' })).toBe(
      'visibility: unlisted · contentWarning: Spoilers',
    );
    expect(
      optionsText({
        topicType: 'EVENT',
        event: { title: 'Open day', schedule: { start: '2027-03-06T09:00', end: '2027-03-06' } },
        callToAction: { actionType: 'CALL' },
      }),
    ).toBe(
      'topicType: EVENT · event.title: Open day · event.schedule.start: 2027-03-06T09:00 · ' +
        'event.schedule.end: 2027-03-06 · callToAction.actionType: CALL',
    );
    expect(optionsText({ suppressEmbeds: true, appliedTags: ['12', '13'], messageThreadId: 7 })).toBe(
      'suppressEmbeds: true · appliedTags: 12, 13 · messageThreadId: 7',
    );
  });
});
