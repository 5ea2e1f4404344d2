/**
 * Words removed from one version of a record and added in the next, marked for eyes
 * (colour and line) and for screen readers (a hidden word before each change). Shared
 * by the reporter's record page and the handler's case page, so both sides see the
 * same differences (docs/decisions/record-versions.md). The labels come from the
 * caller's catalogue.
 */
import { diffWords } from 'diff';
import { visuallyHidden } from '../styles/global.css.ts';
import * as styles from './RecordDiff.css.ts';

export function RecordDiff({ before, after, addedLabel, removedLabel }: { before: string; after: string; addedLabel: string; removedLabel: string }) {
  return (
    <p className={styles.diff} data-testid="record-diff">
      {diffWords(before, after).map((part, i) =>
        part.added ? (
          <ins key={i} className={styles.added}>
            <span className={visuallyHidden}>{addedLabel} </span>
            {part.value}
          </ins>
        ) : part.removed ? (
          <del key={i} className={styles.removed}>
            <span className={visuallyHidden}>{removedLabel} </span>
            {part.value}
          </del>
        ) : (
          <span key={i}>{part.value}</span>
        ),
      )}
    </p>
  );
}
