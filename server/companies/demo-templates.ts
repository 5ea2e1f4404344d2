/**
 * The demo companies' two reply templates (docs/decisions/reply-templates.md): the
 * confirmation of receipt within 7 days and the feedback within 3 months the
 * Directive asks for (art. 9(1)(b) and (f)), in every interface language. The name is
 * the handlers', given in the company's default language.
 */
import type { Language } from '../../machines/schema.ts';

export interface DemoTemplate {
  names: Record<Language, string>;
  texts: Record<Language, string>;
}

export const DEMO_TEMPLATES: DemoTemplate[] = [
  {
    names: {
      da: 'Kvittering for modtagelse',
      no: 'Bekreftelse på mottak',
      se: 'Mottagningsbekräftelse',
      en: 'Confirmation of receipt',
      es: 'Acuse de recibo',
      pl: 'Potwierdzenie przyjęcia zgłoszenia',
      de: 'Eingangsbestätigung',
    },
    texts: {
      da: 'Tak for din indberetning. Vi bekræfter hermed, at vi har modtaget den. Vi behandler den fortroligt og vender tilbage med en tilbagemelding senest tre måneder fra i dag. Du er velkommen til at skrive til os her, hvis du har flere oplysninger.',
      no: 'Takk for varselet ditt. Vi bekrefter med dette at vi har mottatt det. Vi behandler det konfidensielt og gir deg en tilbakemelding senest tre måneder fra i dag. Skriv gjerne til oss her hvis du har flere opplysninger.',
      se: 'Tack för din rapport. Vi bekräftar härmed att vi har tagit emot den. Vi behandlar den konfidentiellt och återkommer med återkoppling senast tre månader från i dag. Skriv gärna till oss här om du har fler uppgifter.',
      en: 'Thank you for your report. We confirm that we have received it. We will treat it confidentially and give you feedback within three months from today. You are welcome to write to us here if you have more information.',
      es: 'Gracias por su comunicación. Le confirmamos que la hemos recibido. La trataremos de forma confidencial y le informaremos de las medidas adoptadas en un plazo máximo de tres meses a partir de hoy. Puede escribirnos aquí si dispone de más información.',
      pl: 'Dziękujemy za zgłoszenie. Potwierdzamy jego przyjęcie. Zajmiemy się nim poufnie i przekażemy Pani/Panu informację zwrotną w ciągu trzech miesięcy od dzisiaj. Jeśli ma Pani/Pan więcej informacji, prosimy o wiadomość tutaj.',
      de: 'Vielen Dank für Ihre Meldung. Wir bestätigen hiermit ihren Eingang. Wir behandeln sie vertraulich und geben Ihnen spätestens drei Monate ab heute eine Rückmeldung. Wenn Sie weitere Informationen haben, schreiben Sie uns gern hier.',
    },
  },
  {
    names: {
      da: 'Tilbagemelding efter tre måneder',
      no: 'Tilbakemelding etter tre måneder',
      se: 'Återkoppling efter tre månader',
      en: 'Feedback after three months',
      es: 'Información a los tres meses',
      pl: 'Informacja zwrotna po trzech miesiącach',
      de: 'Rückmeldung nach drei Monaten',
    },
    texts: {
      da: 'Vi vil gerne give dig en tilbagemelding på din indberetning. Vi har undersøgt de forhold, du beskrev, og har truffet de foranstaltninger, vi fandt nødvendige. Af hensyn til de involverede personer kan vi ikke oplyse nærmere om dem. Du kan fortsat skrive til os her.',
      no: 'Vi vil gjerne gi deg en tilbakemelding på varselet ditt. Vi har undersøkt forholdene du beskrev, og har iverksatt de tiltakene vi fant nødvendige. Av hensyn til de involverte personene kan vi ikke gi nærmere opplysninger om dem. Du kan fortsatt skrive til oss her.',
      se: 'Vi vill ge dig återkoppling på din rapport. Vi har utrett de förhållanden du beskrev och vidtagit de åtgärder vi bedömde som nödvändiga. Av hänsyn till de berörda personerna kan vi inte lämna närmare uppgifter om dem. Du kan fortsätta att skriva till oss här.',
      en: 'We would like to give you feedback on your report. We have looked into the matters you described and have taken the measures we found necessary. Out of consideration for the people involved we cannot give details of them. You can still write to us here.',
      es: 'Queremos informarle sobre el curso de su comunicación. Hemos investigado los hechos que describió y hemos adoptado las medidas que consideramos necesarias. Por respeto a las personas afectadas no podemos darle más detalles sobre ellas. Puede seguir escribiéndonos aquí.',
      pl: 'Chcielibyśmy przekazać Pani/Panu informację zwrotną dotyczącą zgłoszenia. Zbadaliśmy opisane sprawy i podjęliśmy działania, które uznaliśmy za konieczne. Ze względu na osoby, których sprawa dotyczy, nie możemy podać szczegółów. Nadal może Pani/Pan pisać do nas tutaj.',
      de: 'Wir möchten Ihnen eine Rückmeldung zu Ihrer Meldung geben. Wir haben die von Ihnen beschriebenen Vorgänge geprüft und die Maßnahmen ergriffen, die wir für nötig hielten. Aus Rücksicht auf die betroffenen Personen können wir dazu keine Einzelheiten nennen. Sie können uns hier weiterhin schreiben.',
    },
  },
];
