package org.example.calc;

import java.util.List;


public class Calculator {
    private int scale = 2;

    public int add(int a, int b) {
        return a + b;
    }

    public int subtract(int a, int b) {
        return a - b;
    }

    public int divide(int a, int b) {
        if (b == 0) {
            throw new ArithmeticException("division by zero");
        }
        return a / b;
    }

    public double average(List<Integer> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("average of no values");
        }
        int sum = 0;
        for (int value : values) {
            sum += value;
        }
        return (double) sum / values.size();
    }
}
