package org.example.textkit;

import java.util.List;

public final class Inbox {

    public static String latest(List<String> messages) {
        if (messages.isEmpty()) {
            return null;
        }
        return messages.get(messages.size() - 1);
    }
}
