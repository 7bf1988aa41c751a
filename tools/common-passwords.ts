/**
 * Writes the bundled common-password lists (rejectCommonPasswords) under
 * src/user-account/common-passwords/:
 *
 * - chinese-patterns.txt: written from the patterns below (this project's own work): pinyin words
 *   and surnames with the number suffixes people add to them, 520/1314 love numbers, qq patterns,
 *   keyboard walks, repeated and sequential digits, years and YYYYMMDD dates of birth.
 * - zxcvbn-passwords.txt: only when given the path of `passwords.json` from the npm package
 *   @zxcvbn-ts/language-common (MIT, see LICENSE-zxcvbn.txt there), copied one a line:
 *     npm pack @zxcvbn-ts/language-common@4.1.3 && tar xzf zxcvbn-ts-language-common-4.1.3.tgz
 *     node -r @swc-node/register tools/common-passwords.ts package/src/passwords.json
 *
 * Every entry is written in lower case (the service compares case-insensitively), once, sorted.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const OUT = join(__dirname, '..', 'src', 'user-account', 'common-passwords');

const PINYIN_WORDS = [
  'woaini',
  'aini',
  'woaini1',
  'woaiwojia',
  'wohenaini',
  'woainiya',
  'woaiziji',
  'woaimama',
  'woaibaba',
  'wojiaini',
  'aiaini',
  'ailaopo',
  'ailaogong',
  'laopo',
  'laogong',
  'laopoaini',
  'baobei',
  'baobao',
  'qinaide',
  'qinqin',
  'xiaobao',
  'xiaobaobei',
  'tiantian',
  'kuaile',
  'xingfu',
  'pingan',
  'yongyuan',
  'yiqi',
  'yisheng',
  'yibeizi',
  'zhongguo',
  'beijing',
  'shanghai',
  'shenzhen',
  'guangzhou',
  'nihao',
  'nihaoma',
  'haha',
  'hehe',
  'xixi',
  'hahaha',
  'xiaoming',
  'xiaohong',
  'xiaoyu',
  'xiaolong',
  'longlong',
  'feifei',
  'yangyang',
  'lili',
  'dandan',
  'tingting',
  'jingjing',
  'xiaoxiao',
  'mingming',
  'huanhuan',
  'woshishui',
  'mima',
  'wodemima',
  'mimamima',
  'zhangwei',
  'wangwei',
  'liwei',
  'wangfang',
  'zhangsan',
  'lisi',
  'wangwu',
  'xiaoqiang',
  'dabao',
  'erbao',
  'shuaige',
  'meinv',
  'tiancai',
  'shabi',
  'sb',
  'qq',
  'qwe',
  'asd',
  'zxc',
  'abc',
  'aaa',
  'aa',
  'a',
  'admin',
  'root',
  'test',
  'pass',
  'password',
  'passw0rd',
  'p@ssw0rd',
  'p@ssword',
  'huawei',
  'sangfor',
  'qwer',
  'asdf',
  'zxcv',
  'qaz',
  'wsx',
];

const SURNAMES = [
  'wang',
  'li',
  'zhang',
  'liu',
  'chen',
  'yang',
  'huang',
  'zhao',
  'wu',
  'zhou',
  'xu',
  'sun',
  'ma',
  'zhu',
  'hu',
  'guo',
  'he',
  'gao',
  'lin',
  'luo',
  'zheng',
  'liang',
  'xie',
  'song',
  'tang',
  'han',
  'feng',
  'deng',
  'cao',
  'peng',
  'zeng',
  'xiao',
  'tian',
  'dong',
  'pan',
  'yuan',
  'cai',
  'jiang',
  'yu',
  'du',
  'ye',
  'cheng',
  'wei',
  'su',
  'lu',
  'ding',
  'ren',
  'shen',
  'yao',
  'fang',
];

/** What people append: counting runs, lucky and love numbers (520 我爱你, 1314 一生一世), years. */
const NUMBER_SUFFIXES = [
  '',
  '1',
  '12',
  '123',
  '1234',
  '12345',
  '123456',
  '1234567',
  '12345678',
  '123456789',
  '321',
  '520',
  '521',
  '1314',
  '5201314',
  '1314520',
  '520520',
  '888',
  '8888',
  '888888',
  '666',
  '6666',
  '666666',
  '168',
  '518',
  '000',
  '0000',
  '111',
  '1111',
  '111111',
  '007',
  '110',
  '119',
  '88',
  '66',
  '99',
  '11',
  '00',
  '01',
  '99999',
];

/** The same with the symbol a complexity rule asks for. */
const SYMBOL_SUFFIXES = [
  '@123',
  '@1234',
  '@12345',
  '@123456',
  '#123',
  '#1234',
  '123!',
  '123.',
  '123@',
  '123#',
  '!@#',
  '123!@#',
  '@520',
  '@1314',
  '.123',
  '_123',
  '!',
  '.',
  '@',
  '@888',
  '@666',
  '@2020',
  '@2021',
  '@2022',
  '@2023',
  '@2024',
  '@2025',
  '!123',
  '*123',
];

const LOVE_NUMBERS = [
  '5201314',
  '1314520',
  '52013140',
  '5211314',
  '1314521',
  '520520',
  '521521',
  '1314520520',
  '5201314520',
  '13145201314520',
  '7758521',
  '7758258',
  '584520',
  '9958',
  '1314',
  '520',
  '521',
  '53719',
  '20201314',
  '1314woaini',
  '520woaini',
  'woaini520',
  'woaini521',
  'woaini1314',
  'woaini5201314',
  'iloveyou520',
  'iloveyou1314',
  'loveyou1314',
  'love1314',
  'love520',
  'love5201314',
];

const KEYBOARD_WALKS = [
  '1qaz2wsx',
  '1qaz2wsx3edc',
  '1qaz@wsx',
  '1qaz!qaz',
  '!qaz2wsx',
  '!qaz@wsx',
  '1qaz@wsx#edc',
  'zaq12wsx',
  'zaq1xsw2',
  'qazwsx',
  'qazwsxedc',
  'qazwsxedcrfv',
  'qwerty',
  'qwertyuiop',
  'qwer1234',
  'qwer123',
  'asdfghjkl',
  'asdfgh',
  'asdf1234',
  'zxcvbnm',
  'zxcvbn',
  'zxcv1234',
  '1q2w3e4r',
  '1q2w3e4r5t',
  '1q2w3e',
  'q1w2e3r4',
  'q1w2e3r4t5',
  'qweasdzxc',
  'qweasd',
  'asdzxc',
  'qweqwe',
  'asdasd',
  'zxczxc',
  'asdasdasd',
  'qweqweqwe',
  'qwe123',
  'qwe123456',
  'asd123',
  'asd123456',
  'zxc123',
  'zxc123456',
  'abc123',
  'abc123456',
  'abcd1234',
  'a1b2c3d4',
  '1a2b3c4d',
  'a1b2c3',
  'aa123456',
  'a123456',
  'a12345678',
  'a123456789',
  'aaa111',
  'aaaaaa',
  'aaaaaaaa',
  'qqqqqqqq',
  'qq123456',
  'qq123',
  'qq1234',
  'qq5201314',
  'qq666666',
  'qq888888',
  'qq111111',
  'qq000000',
  'qq123456789',
  'qqq111',
  'qq520',
  'qq1314',
  'qwe!@#',
  'qwe123!@#',
  '!@#$%^',
  '!@#$%^&*',
  '!@#qwe',
  '123qwe',
  '123qwe!@#',
  '123qweasd',
  '123qweasdzxc',
  '123asd',
  '123abc',
  '147258',
  '147258369',
  '159357',
  '159753',
  '123654789',
  '741852963',
  '789456123',
  '963852741',
  '321654987',
  '147852369',
  '258369',
  '369258147',
  '951753',
  '852456',
  '456852',
  '147369',
  '741852',
  '789456',
  '123456abc',
  '123456aa',
  '123456a',
  '123456qq',
  '1234qwer',
  '12qwaszx',
  '1qa2ws3ed',
  'q1q1q1',
  'a1a1a1',
];

function digitPatterns(): string[] {
  const out: string[] = [];
  for (let d = 0; d <= 9; d++) for (let n = 6; n <= 12; n++) out.push(String(d).repeat(n));
  const up = '01234567890123456789';
  const down = '98765432109876543210';
  for (let n = 6; n <= 10; n++) {
    for (let i = 0; i + n <= 10; i++) out.push(up.slice(i, i + n), down.slice(i, i + n));
  }
  for (const unit of [
    '12',
    '123',
    '1234',
    '12345',
    '321',
    '520',
    '1314',
    '168',
    '518',
    '112233',
    '11223344',
    '12341234',
  ]) {
    for (let times = 2; times <= 4; times++) {
      const value = unit.repeat(times);
      if (value.length >= 6 && value.length <= 16) out.push(value);
    }
  }
  out.push(
    '123321',
    '1234321',
    '12344321',
    '123454321',
    '112233',
    '11223344',
    '121212',
    '131313',
    '123123123',
    '110110',
    '110110110',
    '119119',
    '31415926',
    '3141592653',
    '0123456789',
    '1234567890',
    '0987654321',
  );
  return out;
}

const pad = (n: number) => String(n).padStart(2, '0');

function dates(): string[] {
  const out: string[] = [];
  for (let year = 1950; year <= 2025; year++) out.push(String(year));
  // Dates of birth as YYYYMMDD: among the most common Chinese passwords.
  for (let t = Date.UTC(1960, 0, 1); t <= Date.UTC(2009, 11, 31); t += 86_400_000) {
    const d = new Date(t);
    out.push(`${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`);
  }
  return out;
}

function chinesePatterns(): string[] {
  const out = [...LOVE_NUMBERS, ...KEYBOARD_WALKS, ...digitPatterns(), ...dates()];
  for (const word of PINYIN_WORDS) {
    for (const suffix of [...NUMBER_SUFFIXES, ...SYMBOL_SUFFIXES]) out.push(word + suffix);
    out.push(`123${word}`, `520${word}`, `1314${word}`);
  }
  for (const name of SURNAMES) {
    for (const suffix of NUMBER_SUFFIXES) out.push(name + suffix);
    for (const suffix of SYMBOL_SUFFIXES) out.push(name + suffix);
    for (let year = 1970; year <= 2010; year++) out.push(`${name}${year}`);
  }
  for (const word of ['woaini', 'aini', 'baobei', 'laopo', 'laogong', 'qq', 'a', 'abc']) {
    for (let year = 1970; year <= 2010; year++) out.push(`${word}${year}`);
  }
  // Short entries are refused by any sensible minimum length before they reach the list.
  return out.filter((p) => p.length >= 4);
}

function write(file: string, entries: Iterable<string>): number {
  const unique = [...new Set([...entries].map((p) => p.trim().toLowerCase()).filter(Boolean))].sort();
  writeFileSync(join(OUT, file), unique.join('\n') + '\n');
  return unique.length;
}

console.log(`chinese-patterns.txt: ${write('chinese-patterns.txt', chinesePatterns())} entries`);
const zxcvbn = process.argv[2];
if (zxcvbn) {
  const list = JSON.parse(readFileSync(zxcvbn, 'utf8')) as string[];
  console.log(`zxcvbn-passwords.txt: ${write('zxcvbn-passwords.txt', list)} entries`);
}
