// UI text in English and Chinese, and the current language.
import { load, save } from "./store.js";

const STRINGS = {
  en: {
    brand: "Collective Judge",
    exercises: "Exercises",
    welcome: "Pick an exercise on the left. Run tests checks your code here in the browser; Submit sends it to the judge for the official verdict on real torch.",
    runSample: "Run sample",
    runAll: "Run all tests",
    stop: "Stop",
    submit: "Submit",
    reset: "Reset to starter",
    resetConfirm: "Replace your code with the starter? Your current code will be lost.",
    langButton: "中文",
    notStarted: "not started",
    tried: "tried",
    solved: "solved",
    runnerLoading: "Loading Python…",
    runnerReady: "Python ready ({mode})",
    runnerBusy: "Running…",
    runnerFailed: "Python failed to load: {error}",
    stopped: "Stopped.",
    running: "Running the tests in your browser…",
    submitting: "Submitted; waiting for the judge…",
    queued: "Queued on the judge…",
    judging: "The judge is running your code…",
    serverUnreachable: "The judge server is unreachable: Submit needs the server. Run tests still works here in the browser.",
    loginNeeded: "Log in to submit.",
    login: "Log in",
    logout: "Log out",
    register: "Register",
    cancel: "Cancel",
    username: "Username",
    password: "Password",
    loggedInAs: "{user}",
    case: "Case",
    ranks: "Ranks",
    verdict: "Verdict",
    bytesSent: "Bytes sent per rank",
    bound: "bound {bound}",
    time: "Time",
    message: "Message",
    stdout: "Output",
    traceback: "Traceback",
    localResult: "Browser run (simulated torch)",
    officialResult: "Official verdict ({runtime})",
    history: "Your submissions",
    noHistory: "No submissions yet.",
    when: "When",
    sample: "sample",
    skipped: "Not run after the first failure: {cases}",
    status_queued: "queued",
    status_running: "running",
  },
  zh: {
    brand: "集合通信评测",
    exercises: "练习",
    welcome: "在左侧选择一道练习。「运行测试」在浏览器中检查你的代码；「提交」把代码交给评测机，在真实的 torch 上给出正式结果。",
    runSample: "运行样例",
    runAll: "运行全部测试",
    stop: "停止",
    submit: "提交",
    reset: "恢复初始代码",
    resetConfirm: "用初始代码替换你的代码？当前代码将丢失。",
    langButton: "English",
    notStarted: "未开始",
    tried: "已尝试",
    solved: "已通过",
    runnerLoading: "正在加载 Python…",
    runnerReady: "Python 已就绪（{mode}）",
    runnerBusy: "运行中…",
    runnerFailed: "Python 加载失败：{error}",
    stopped: "已停止。",
    running: "正在浏览器中运行测试…",
    submitting: "已提交，等待评测机…",
    queued: "在评测机上排队…",
    judging: "评测机正在运行你的代码…",
    serverUnreachable: "无法连接评测服务器：提交需要服务器。「运行测试」仍可在浏览器中使用。",
    loginNeeded: "请先登录再提交。",
    login: "登录",
    logout: "退出",
    register: "注册",
    cancel: "取消",
    username: "用户名",
    password: "密码",
    loggedInAs: "{user}",
    case: "用例",
    ranks: "rank 数",
    verdict: "结果",
    bytesSent: "各 rank 发送字节",
    bound: "上限 {bound}",
    time: "用时",
    message: "说明",
    stdout: "输出",
    traceback: "回溯",
    localResult: "浏览器运行（模拟 torch）",
    officialResult: "正式结果（{runtime}）",
    history: "我的提交",
    noHistory: "还没有提交。",
    when: "时间",
    sample: "样例",
    skipped: "出现第一个失败后未运行：{cases}",
    status_queued: "排队中",
    status_running: "运行中",
  },
};

const listeners = [];
let lang = load("lang") ?? (navigator.language?.startsWith("zh") ? "zh" : "en");

export const currentLang = () => lang;

export function t(key, params = {}) {
  return STRINGS[lang][key].replace(/\{(\w+)\}/g, (_, name) => String(params[name]));
}

/** Pick the current language's side of an {en, zh} pair, or of a message/message_zh pair. */
export function pick(pair) {
  return pair[lang] ?? pair.en;
}

export function applyI18n(root = document) {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
}

export function setLang(next) {
  lang = next;
  save("lang", lang);
  applyI18n();
  for (const fn of listeners) fn(lang);
}

export const onLangChange = (fn) => listeners.push(fn);
