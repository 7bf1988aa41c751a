/// <reference types="vite/client" />

declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<object, object, unknown>;
  export default component;
}

// Shape-detection API (Chromium, Safari); absent elsewhere, so always feature-tested.
interface DetectedBarcode {
  rawValue: string;
  format: string;
}
interface BarcodeDetectorOptions {
  formats?: string[];
}
declare class BarcodeDetector {
  constructor(options?: BarcodeDetectorOptions);
  detect(source: ImageBitmapSource | HTMLVideoElement): Promise<DetectedBarcode[]>;
}
interface Window {
  BarcodeDetector?: typeof BarcodeDetector;
}
