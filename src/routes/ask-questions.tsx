import type { ReactNode } from 'react';
import { createFileRoute, Link } from '@tanstack/react-router';
import { useT } from '../i18n/index.ts';
import { useLookAndFeel } from '../app/lookAndFeel.tsx';
import { Page, PageTitle } from '../components/PageTitle.tsx';
import { Icon } from '../components/Icon.tsx';
import { TelLink } from '../components/TelLink.tsx';
import * as styles from './-pages.css.ts';

export const Route = createFileRoute('/ask-questions')({
  component: AskQuestions,
});

function AskQuestions() {
  const t = useT();
  const laf = useLookAndFeel();
  const phone = laf.contactPhone?.trim() || '';
  const person = laf.contactPerson?.trim() || t('ask.person.default');
  const details = laf.contactDetails?.trim() || t('ask.details.default');
  return (
    <Page>
      <PageTitle title={t('ask.title')} />
      <p className={styles.lead}>{t('ask.lead')}</p>
      <div className={styles.grid}>
        <AskBox id="ask-phone" icon="phone" title={t('ask.phone.title')}>
          {phone ? (
            <>
              <p>
                <TelLink phone={phone} className={styles.phone} testId="contact-phone" hideNumberHint />
              </p>
            </>
          ) : (
            <p>{t('ask.phone.none')}</p>
          )}
          <p className={styles.muted}>{t('ask.phone.hours')}</p>
        </AskBox>
        <AskBox id="ask-online" icon="question" title={t('ask.online.title')}>
          <p>{t('ask.online.text')}</p>
          <Link to="/online-form" className={styles.button} reloadDocument={laf.voice?.enabled === true}>
            {t('ask.online.action')}
          </Link>
        </AskBox>
        <AskBox id="ask-person" icon="info" title={t('ask.person.title')}>
          <p data-testid="contact-person">{person}</p>
          <p className={styles.preLine} data-testid="contact-details">
            {details}
          </p>
        </AskBox>
      </div>
      <p>
        {t('ask.faq.text')} <Link to="/faq">{t('ask.faq.link')}</Link>
      </p>
    </Page>
  );
}

/** One way to ask: a card with an icon heading. */
function AskBox({ id, icon, title, children }: { id: string; icon: string; title: string; children: ReactNode }) {
  return (
    <section className={styles.box} aria-labelledby={id}>
      <h2 id={id} className={styles.boxTitle}>
        <Icon name={icon} />
        {title}
      </h2>
      {children}
    </section>
  );
}
