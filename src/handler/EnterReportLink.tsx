/** The inbox's way to the report entry (docs/decisions/handler-entered-reports.md). */
import '../i18n/entry/index.ts';
import { useT } from '../i18n/index.ts';
import { HLink } from './links.tsx';
import * as css from './CaseEntryPage.css.ts';

export function EnterReportLink() {
  const te = useT('entry');
  return (
    <p>
      <HLink to="/handler/cases/new" className={css.enterLink}>
        {te('entry.open')}
      </HLink>
    </p>
  );
}
