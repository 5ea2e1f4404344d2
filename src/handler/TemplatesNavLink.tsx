/** The top bar's link to the reply templates (administrators and the operator), in its own catalogue area so other pages do not load it. */
import { Suspense } from 'react';
import { useT } from '../i18n/index.ts';
import '../i18n/templates/index.ts';
import { HLink } from './links.tsx';
import * as adminStyles from './admin/Admin.css.ts';

export function TemplatesNavLink() {
  return (
    <Suspense fallback={null}>
      <NavLink />
    </Suspense>
  );
}

function NavLink() {
  const t = useT('templates');
  return (
    <HLink to="/handler/templates" className={adminStyles.navLink}>
      {t('templates.nav')}
    </HLink>
  );
}
