import { persianHistoryWords } from './persian-chart-text.ts';
import { persianErrors } from './persian-errors.ts';
import { ageFa, changeFa, durationFa, integerFa, timeFa, tomanFa, usdtFa } from './persian-format.ts';
import type { SiteWords } from './site-words.ts';

/** The website's Persian, under `/fa`: Persian digits in prose, Solar Hijri dates and Tehran time. */
export const persianWords: SiteWords = {
  language: 'fa',
  dir: 'rtl',
  ownName: 'فارسی',

  integer: integerFa,
  toman: tomanFa,
  usdt: usdtFa,
  change: changeFa,
  time: timeFa,
  rateTime: timeFa,
  age: ageFa,
  duration: durationFa,

  layout: {
    skipLink: 'پرش به محتوای اصلی',
    siteNavLabel: 'سایت',
    nav: {
      '/': 'نمای کلی',
      '/docs': 'راهنمای API',
      '/docs/errors': 'خطاها',
      '/coins': 'ارزها',
      '/clients': 'کلاینت‌ها',
      '/status': 'وضعیت',
      '/contact': 'دریافت کلید',
      '/terms': 'شرایط',
    },
    machineHeading: 'برای برنامه‌ها و عامل‌های هوش مصنوعی',
    machineLinks: {
      '/v1/openapi.json': 'توصیف OpenAPI',
      '/.well-known/api-catalog': 'کاتالوگ API (RFC 9727)',
      '/llms.txt': 'llms.txt',
      '/llms-full.txt': 'llms-full.txt',
      '/SKILL.md': 'SKILL.md برای عامل‌ها',
      '/v1/health': 'سلامت (JSON)',
    },
    footerHtml: (termsHref) =>
      `هر صفحه به Markdown هم در دسترس است: آن را با <code dir="ltr">Accept: text/markdown</code> بخواهید. نرخ‌ها اطلاع‌رسانی‌اند؛ <a href="${termsHref}">شرایط</a> را ببینید.`,
    languageSwitchLabel: 'زبان',
    titleSuffix: 'نرخ',
  },

  overview: {
    title: 'نرخ فروش ارزهای دیجیتال به تتر و تومان',
    description: (count) =>
      `نرخ فروش کنونی ${count === null ? '' : `${integerFa(count)} `}ارز دیجیتال به تتر (USDT) و تومان، برای برنامه‌ها و عامل‌های هوش مصنوعی.`,
    noRates: 'هنوز نرخی منتشر نشده است: سرویس تازه راه افتاده و نخستین به‌روزرسانی‌اش تمام نشده است.',
    currencies: (count) => `ارزهای فهرست: **${count}**`,
    lastRefresh: (time, age) => `آخرین به‌روزرسانی: **${time}** (${age})`,
    tetherSells: (toman) => `نرخ فروش تتر (USDT): **${toman}**`,
  },
  docs: {
    title: 'راهنمای API',
    description: 'شیوهٔ فراخوانی API نرخ: احراز هویت، فیلدها، سقف درخواست، کش، خطاها و نمونه‌ها.',
    errorTableHeader: '| وضعیت | کد | عنوان |',
  },
  errors: {
    title: 'خطاها',
    description: 'همهٔ انواع خطایی که API نرخ با آن پاسخ می‌دهد، هر یک با لنگر خودش.',
    entry: (code) => persianErrors[code],
    statusLine: (status, title, apiTitle) => `**${status}**: ${title}. عنوان در پاسخ API: \`${apiTitle}\`.`,
    problemType: '`type` خطا',
  },
  coins: {
    title: 'ارزها',
    description: 'همهٔ ارزهای دیجیتال فهرست با نرخ فروش کنونی‌شان به تتر و تومان.',
    noRates: 'هنوز نرخی منتشر نشده است: نخستین به‌روزرسانی تمام نشده است.',
    summary: (count, time, tether) => `${count} ارز، به‌روزشده در ${time}. نرخ فروش تتر (USDT): ${tether}.`,
    filterSummary: (count, query, showAll) =>
      `${count === 0 ? 'هیچ ارزی' : `${integerFa(count)} ارز`} نماد یا نامی (فارسی یا انگلیسی) شامل «${query}» دارد: [نمایش همهٔ ارزها](${showAll}).`,
    columns: {
      symbol: 'نماد',
      name: 'نام',
      usdt: 'فروش (تتر)',
      toman: 'فروش (تومان)',
      change: '۲۴ ساعت',
      trend: '۲۴ ساعت گذشته',
      asOf: 'زمان نرخ',
    },
    trendMarkdown: '۲۴ ساعت گذشته، کمینه – بیشینه (تتر)',
    list: {
      table: 'ارزها',
      filter: 'پالایش با نماد یا نام فارسی یا انگلیسی',
      filterHint: 'مثلاً BTC، ethereum یا بیت‌کوین؛ بخشی از نام کافی است.',
      apply: 'پالایش',
      sortAction: (order) => (order === 'asc' ? 'مرتب‌سازی صعودی' : 'مرتب‌سازی نزولی'),
    },
  },
  history: persianHistoryWords,
  coin: {
    title: (symbol) => `نرخ فروش ${symbol}`,
    description: (symbol, name) => `نرخ فروش کنونی ${name} (${symbol}) به تتر و تومان.`,
    tableHeader: '| نرخ | مقدار |',
    sellUsdt: 'نرخ فروش به تتر',
    sellToman: 'نرخ فروش به تومان',
    change: 'تغییر در ۲۴ ساعت',
    asOf: 'زمان نرخ',
    tetherRate: 'نرخ تتر به‌کاررفته',
    priceFrom: (source, age, tetherSource) =>
      tetherSource === null
        ? `قیمت از ${source}، ${age}.`
        : `قیمت از ${source}، ${age}؛ تبدیل میان تتر و تومان با نرخ تتر از ${tetherSource}.`,
  },
  coinNotFound: {
    title: 'ارز پیدا نشد',
    description: 'هیچ ارزی در فهرست این نماد را ندارد.',
    youAskedFor: 'درخواستی',
  },
  status: {
    title: 'وضعیت سرویس',
    description: 'تازگی نرخ‌ها و وضعیت منابع داده، برای انسان‌ها.',
    verdict: {
      pass: 'همه‌چیز درست است: داده تازه است و همهٔ منابع وصل‌اند.',
      warn: 'کاهش کیفیت: نرخ‌ها هنوز ارائه می‌شوند، ولی یکی از منابع مشکل دارد، آخرین ثبت تصویر نرخ‌ها ناموفق بود یا داده کهنه می‌شود.',
      fail: 'از کار افتاده: اکنون نباید به نرخ‌ها تکیه کرد.',
    },
    statusName: { pass: 'سالم (pass)', warn: 'هشدار (warn)', fail: 'خرابی (fail)' },
    headline: (status, verdict) => `**وضعیت: ${status}.** ${verdict}`,
    lastRefreshNone: 'آخرین به‌روزرسانی: هنوز نه',
    lastRefresh: (time, age) => `آخرین به‌روزرسانی: ${time} (${age})`,
    nextRefresh: (time) => `به‌روزرسانی بعدی: ${time}`,
    currencies: (count) => `ارزهای فهرست: ${count}`,
    checksHeading: 'بررسی‌ها',
    tableHeader: '| بررسی | وضعیت | آخرین دیده‌شدن | جزئیات |',
    never: 'هرگز',
  },
  contact: {
    title: 'درخواست کلید API',
    errorTitle: 'خطا: درخواست کلید API',
    description: 'درخواست کلید API: کلیدها به‌دست یک نفر و برای سازمان‌های شناخته‌شده صادر می‌شوند.',
    receivedTitle: 'درخواست دریافت شد',
    receivedDescription: 'درخواست کلید API شما ثبت شد و بررسی خواهد شد.',
  },
  clients: {
    title: 'کلاینت‌ها',
    description:
      'یک کلاینت TypeScript با نوع‌های دقیق و یک سرور MCP برای API نرخ‌های nerkh، با پیکربندی میزبان‌های MCP.',
  },
  terms: {
    title: 'شرایط استفاده',
    description: 'نرخ‌ها اطلاع‌رسانی‌اند؛ این‌که چه هستند و API چگونه باید به کار رود.',
  },

  form: {
    legend: 'درخواست کلید',
    submit: 'فرستادن درخواست',
    honeypotLabel: 'این فیلد را خالی بگذارید',
    errorPrefix: 'خطا:',
    problemHeading: 'مشکلی هست',
    notSent: 'درخواست شما فرستاده نشد.',
    tokenExpired: 'فرم بیش از دو ساعت پیش بارگذاری شده است. صفحهٔ تماس را دوباره باز کنید و دوباره بفرستید.',
    tokenMissing:
      'فرم در این نشست مرورگر از این سایت بارگذاری نشده است. صفحهٔ تماس را دوباره باز کنید و دوباره بفرستید؛ کوکی‌ها باید فعال باشند.',
    tooManyRequests: (perHour) =>
      `این شبکه در ساعت گذشته ${perHour} درخواست کلید فرستاده، که بیشترین تعدادی است که صفحهٔ تماس می‌پذیرد. یک ساعت دیگر دوباره بفرستید؛ درخواست‌های فرستاده‌شده در حال بررسی‌اند.`,
    fields: {
      name: { label: 'نام شما', hint: 'کسی که باید به او پاسخ دهیم.', noun: 'نام خود' },
      org: {
        label: 'سازمان',
        hint: 'کلیدها به سازمان‌ها داده می‌شوند، برای هر مصرف‌کننده یکی.',
        noun: 'نام سازمان',
      },
      email: { label: 'ایمیل', hint: 'جایی که کلید یا پرسش‌هایمان را می‌فرستیم.', noun: 'نشانی ایمیل' },
      purpose: {
        label: 'کاربرد',
        hint: 'کلید برای چیست: برنامهٔ شما و این‌که نرخ‌ها را چگونه به کار می‌برد.',
        noun: 'کاربرد کلید',
      },
      expected_use: {
        label: 'میزان استفادهٔ مورد انتظار (اختیاری)',
        hint: 'مثلاً: یک درخواست در دقیقه از یک سرور.',
        noun: 'میزان استفاده',
      },
    },
    giveOnce: (noun) => `${noun} را فقط یک بار بدهید.`,
    enter: (noun) => `${noun} را وارد کنید.`,
    tooLong: (noun, max) => `${noun} باید ${max} نویسه یا کمتر باشد.`,
    badCharacters: (noun) => `${noun} نویسه‌های غیرمجاز دارد.`,
    badEmail: 'نشانی ایمیلی مانند name@example.com وارد کنید.',
  },
};
