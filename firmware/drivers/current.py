# Motor-current sense on an ADC input: read_u16() above a threshold means a stall.
class CurrentSense:
    def __init__(self, adc, *, threshold_u16):
        self._adc = adc
        self.threshold = threshold_u16
        self.last = 0
        self.peak = 0

    def read(self):
        v = self._adc.read_u16()
        self.last = v
        if v > self.peak:
            self.peak = v
        return v

    def over(self):
        return self.read() > self.threshold

    def reset_peak(self):
        self.peak = 0
