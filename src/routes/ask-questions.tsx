import { createFileRoute, Link } from '@tanstack/react-router';
import { useT } from '../i18n/index.ts';
import { useLookAndFeel } from '../app/lookAndFeel.tsx';
import { Page, PageTitle } from '../components/PageTitle.tsx';
import { Icon } from '../components/Icon.tsx';
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
        <section className={styles.box} aria-labelledby="ask-phone">
          <h2 id="ask-phone" className={styles.boxTitle}>
            <Icon name="phone" />
            {t('ask.phone.title')}
          </h2>
          {phone ? (
            <a className={styles.phone} href={`tel:${phone.replace(/\s+/g, '')}`} data-testid="contact-phone">
              {phone}
            </a>
          ) : (
            <p>{t('ask.phone.none')}</p>
          )}
          <p className={styles.muted}>{t('ask.phone.hours')}</p>
        </section>
        <section className={styles.box} aria-labelledby="ask-online">
          <h2 id="ask-online" className={styles.boxTitle}>
            <Icon name="question" />
            {t('ask.online.title')}
          </h2>
          <p>{t('ask.online.text')}</p>
          <Link to="/online-form" className={styles.button}>
            {t('ask.online.action')}
          </Link>
        </section>
        <section className={styles.box} aria-labelledby="ask-person">
          <h2 id="ask-person" className={styles.boxTitle}>
            <Icon name="info" />
            {t('ask.person.title')}
          </h2>
          <p data-testid="contact-person">{person}</p>
          <p className={styles.preLine} data-testid="contact-details">
            {details}
          </p>
        </section>
      </div>
      <p>
        {t('ask.faq.text')} <Link to="/faq">{t('ask.faq.link')}</Link>
      </p>
    </Page>
  );
}
