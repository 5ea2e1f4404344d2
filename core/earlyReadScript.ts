/**
 * The text of the private pages' head script (./earlyRead.ts says what it does). A
 * module of its own because only the server writes it: the SPA's bundle needs the
 * names and the functions that take the answers, not the script.
 */
import { BOOT_ELEMENT_ID } from './boot.ts';
import { EARLY_READ_EXCLUDED_PATH, EARLY_READ_GLOBAL, EARLY_READ_MIN_VALIDITY_SECONDS, MY_CASE_PATH } from './earlyRead.ts';

/**
 * The head script. Plain ES5 so that it runs before anything else, with the API
 * address worked out as machines/config.ts `apiBaseUrlOf` does (a unit test holds
 * the two together, and the storage key to oidc-client-ts's own).
 */
export const EARLY_READ_JS = `(function(){try{if(location.pathname===${JSON.stringify(EARLY_READ_EXCLUDED_PATH)})return;var e=document.getElementById(${JSON.stringify(BOOT_ELEMENT_ID)}),b=e&&JSON.parse(e.textContent||"null"),c=b&&b.config,i=c&&c.idSettings,a=c&&c.api;if(!i||!a||!a.host||!a.protocol)return;var u=JSON.parse(sessionStorage.getItem("oidc.user:"+i.authority+":"+i.clientId)||"null");if(!u||typeof u.access_token!=="string"||!(u.expires_at-Date.now()/1000>${EARLY_READ_MIN_VALIDITY_SECONDS}))return;var p=String(a.protocol).replace(/:$/,""),o=a.port===undefined||a.port===""?"":String(a.port);if((p==="https"&&o==="443")||(p==="http"&&o==="80"))o="";var r=p+"://"+a.host+(o?":"+o:""),h={headers:{accept:"application/json",authorization:"Bearer "+u.access_token},credentials:"omit",referrerPolicy:"no-referrer"},x={token:u.access_token,myCase:fetch(r+${JSON.stringify(MY_CASE_PATH)},h)};x.myCase.then(function(s){if(s.status===200)return s.clone().json().then(function(d){x.answer={etag:s.headers.get("etag"),data:d}})}).catch(function(){});window[${JSON.stringify(EARLY_READ_GLOBAL)}]=x}catch(y){}})()`;
